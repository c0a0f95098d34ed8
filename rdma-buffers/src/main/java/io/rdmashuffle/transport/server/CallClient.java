/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calling side of CALL connections: one pooled, authenticated connection per (peer,
 * application, local address), opened on first use on one of the connection server's I/O threads,
 * closed when it breaks, times out a call, or idles; the next call opens a fresh one. Thread-safe;
 * one per connection server.
 */
public final class CallClient {
  private final ConnectionServer server;
  private final ApplicationSecrets secrets;
  private final Map<Key, CallConnection> pool = new ConcurrentHashMap<>();
  private volatile boolean closed;

  record Key(PeerAddress peer, String application, InetAddress local) {}

  CallClient(ConnectionServer server, ApplicationSecrets secrets) {
    this.server = server;
    this.secrets = secrets;
  }

  /** See {@link io.rdmashuffle.transport.Transport#call}. */
  public CompletableFuture<ByteBuffer> call(
      PeerAddress peer, String application, int service, ByteBuffer request) {
    return call(peer, application, service, request, null);
  }

  /**
   * As {@link #call(PeerAddress, String, int, ByteBuffer)}, on a connection whose local end is
   * bound to {@code local} (null: the system picks), so the peer sees the call come from there.
   */
  public CompletableFuture<ByteBuffer> call(
      PeerAddress peer, String application, int service, ByteBuffer request, InetAddress local) {
    Objects.requireNonNull(peer, "peer");
    int max = server.limits().maxCallRequestBytes();
    if (request.remaining() > max) {
      throw new IllegalArgumentException(
          "request of " + request.remaining() + " bytes: exceeds call.maxRequestBytes=" + max);
    }
    if (service <= 0 || service > CallService.MAX_SERVICE) {
      throw new IllegalArgumentException(
          "service=" + service + ": must be 1.." + CallService.MAX_SERVICE);
    }
    CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
    byte[] secret = secrets.secretOf(application);
    if (secret == null) {
      server.metrics().failure(io.rdmashuffle.metrics.FailureKind.AUTHENTICATION);
      f.completeExceptionally(
          new AuthenticationException(
              "no secret known for application " + application, peer, null, null));
      return f;
    }
    byte[] payload = new byte[request.remaining()];
    request.duplicate().get(payload);
    PendingCall call =
        new PendingCall(
            service, payload, f, System.nanoTime() + server.limits().callTimeoutNanos());
    Key key = new Key(peer, application, local);
    TransportException lastCause = null;
    for (int attempt = 0; attempt < 2; attempt++) {
      if (closed) {
        break;
      }
      boolean[] opened = {false};
      CallConnection c =
          pool.computeIfAbsent(
              key,
              k -> {
                opened[0] = true;
                return new CallConnection(this, k);
              });
      if (opened[0]) {
        c.open(secret);
      }
      if (c.submit(call)) {
        return f;
      }
      pool.remove(key, c);
      lastCause = c.closedBy();
      if (opened[0]) {
        // opened for this call and already closed (refused busy, authentication failed): its
        // cause is the answer; another connection would only be refused again, and counted again
        break;
      }
      // a pooled connection closed under us: one fresh connection
    }
    if (lastCause == null) {
      lastCause = new ConnectionLostException("the transport is closed", peer, null, null);
    }
    server.metrics().failure(lastCause.kind());
    f.completeExceptionally(lastCause);
    return f;
  }

  ConnectionServer server() {
    return server;
  }

  void closed(CallConnection c) {
    pool.remove(c.key(), c);
  }

  /** Open CALL connections (tests). */
  public int connections() {
    return pool.size();
  }

  /** Stops new calls; the connections close with their I/O threads. */
  void close() {
    closed = true;
  }
}
