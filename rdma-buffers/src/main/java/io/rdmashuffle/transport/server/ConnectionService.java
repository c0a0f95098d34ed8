/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.handshake.Handshake;

/** Serves the connections authenticated for one purpose ({@link ConnectionServer#serve}). */
public interface ConnectionService {
  /**
   * A connection proved its secret for this service's purpose: returns the session that serves it.
   * Runs on the connection's I/O thread; must not block.
   */
  Session open(Connection connection, Handshake.Result handshake);
}
