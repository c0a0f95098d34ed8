/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** A transport that does what {@code delegate} does: tests override the one part they change. */
public abstract class ForwardingTransport implements Transport {
  protected final Transport delegate;

  protected ForwardingTransport(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public TransportKind kind() {
    return delegate.kind();
  }

  @Override
  public PeerAddress localAddress() {
    return delegate.localAddress();
  }

  @Override
  public MemoryRegistrar registrar() {
    return delegate.registrar();
  }

  @Override
  public ReadChannel connect(PeerAddress peer, String application) throws TransportException {
    return delegate.connect(peer, application);
  }

  @Override
  public TransportMetrics metrics() {
    return delegate.metrics();
  }

  @Override
  public void serveCalls(int service, CallHandler handler) {
    delegate.serveCalls(service, handler);
  }

  @Override
  public CompletableFuture<ByteBuffer> call(
      PeerAddress peer, String application, int service, ByteBuffer request) {
    return delegate.call(peer, application, service, request);
  }

  @Override
  public void withdrawApplication(String application) {
    delegate.withdrawApplication(application);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
