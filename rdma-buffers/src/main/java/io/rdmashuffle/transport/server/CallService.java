/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.handshake.Handshake;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serves the CALL purpose: the registered {@link CallHandler}s by service id, and a {@link
 * CallSession} per authenticated CALL connection. Owned by {@link ConnectionServer}.
 */
final class CallService implements ConnectionService {
  /** Calls one connection may have in the workers at once; beyond it its requests wait unread. */
  static final int MAX_IN_FLIGHT_PER_CONNECTION = 64;

  static final int MAX_SERVICE = 0xffff;

  private final ConnectionServer server;
  private final Map<Integer, CallHandler> handlers = new ConcurrentHashMap<>();
  private final CallWorkers workers;

  CallService(ConnectionServer server, CallWorkers workers) {
    this.server = server;
    this.workers = workers;
  }

  void serve(int service, CallHandler handler) {
    if (service <= 0 || service > MAX_SERVICE) {
      throw new IllegalArgumentException("service=" + service + ": must be 1.." + MAX_SERVICE);
    }
    handlers.put(service, handler);
  }

  void stopServing(int service, CallHandler handler) {
    handlers.remove(service, handler);
  }

  CallHandler handler(int service) {
    return handlers.get(service);
  }

  CallWorkers workers() {
    return workers;
  }

  ConnectionServer server() {
    return server;
  }

  @Override
  public Session open(Connection connection, Handshake.Result handshake) {
    return new CallSession(this, connection, handshake);
  }
}
