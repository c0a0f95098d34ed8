/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.metrics.Refusal;
import java.io.IOException;

/**
 * What drives one authenticated connection once its handshake is done: on the serving side the
 * service of its purpose ({@link ConnectionService#open}), on the opening side the one who opened
 * it ({@link ConnectionServer#open}). Every method runs on the connection's I/O thread and must not
 * block; an exception closes the connection.
 */
public interface Session {
  /** The socket has bytes to read (or has ended). */
  void readable() throws IOException;

  /** The socket can take bytes again after a send that did not finish. */
  void writable() throws IOException;

  /** Whether bytes wait to be sent (the server's send-progress timeout applies). */
  boolean hasPendingOutput();

  /**
   * Whether the server has work in progress for the peer (answers being made or owed): then the
   * connection is not idle. A request read in part does not count: a peer that stalls in the middle
   * of one is idle.
   */
  boolean busy();

  /** The session's own deadlines: returns why to close the connection now, or null. */
  Refusal check(long nowNanos);

  /**
   * When {@link #check} must run next (nanoTime), {@code Long.MAX_VALUE} when it needs not: the I/O
   * thread sleeps until the earliest deadline of its connections.
   */
  default long deadline(long nowNanos) {
    return Long.MAX_VALUE;
  }

  /** The connection broke under the session ({@code e}); {@link #closed()} follows. */
  default void broke(IOException e) {}

  /** The connection has closed: release everything the session holds. Called once. */
  void closed();
}
