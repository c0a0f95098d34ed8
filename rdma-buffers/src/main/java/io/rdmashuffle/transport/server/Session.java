package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.Refusal;
import java.io.IOException;

/**
 * What a purpose's service does with one authenticated connection ({@link ConnectionService#open}).
 * Every method runs on the connection's I/O thread and must not block; an exception closes the
 * connection.
 */
public interface Session {
  /** The socket has bytes to read (or has ended). */
  void readable() throws IOException;

  /** The socket can take bytes again after a send that did not finish. */
  void writable() throws IOException;

  /** Whether bytes wait to be sent (the send-progress timeout applies). */
  boolean hasPendingOutput();

  /**
   * Whether the server has work in progress for the peer (answers being made or owed): then the
   * connection is not idle. A request read in part does not count: a peer that stalls in the middle
   * of one is idle.
   */
  boolean busy();

  /** A periodic check; returns why to close the connection now, or null. */
  Refusal check(long nowNanos);

  /** The connection has closed: release everything the session holds. Called once. */
  void closed();
}
