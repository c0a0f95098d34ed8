/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.provider;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.server.ConnectionServer;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * What every transport does the same way on the process's connection server: peers reach it at the
 * server's address, calls go out and are served through the server, a withdrawn application's
 * connections to the server are closed, and failures are counted before they are thrown. A
 * transport extends it with its READs; it owns the server from its start (see {@link
 * TransportContext}) and closes it in its {@link #close()}.
 */
public abstract class ConnectionServerTransport implements Transport {
  protected final ConnectionServer server;
  protected final TransportMetrics metrics;

  protected ConnectionServerTransport(TransportContext context) {
    this.server = context.server();
    this.metrics = context.metrics();
  }

  @Override
  public final PeerAddress localAddress() {
    return server.address();
  }

  @Override
  public final TransportMetrics metrics() {
    return metrics;
  }

  @Override
  public final void serveCalls(int service, CallHandler handler) {
    server.serveCalls(service, handler);
  }

  @Override
  public final CompletableFuture<ByteBuffer> call(
      PeerAddress peer, String application, int service, ByteBuffer request) {
    return server.calls().call(peer, application, service, request);
  }

  /**
   * Closes the application's connections to the connection server (READs, calls: one left open
   * would go on being answered); a transport that holds more for it releases that too.
   */
  @Override
  public void withdrawApplication(String application) {
    server.closeApplication(application);
  }

  /** The connection server this transport serves on. */
  public final ConnectionServer server() {
    return server;
  }

  /** Counts {@code e} by its kind and returns it, to be thrown. */
  protected final TransportException failed(TransportException e) {
    metrics.failure(e.kind());
    return e;
  }
}
