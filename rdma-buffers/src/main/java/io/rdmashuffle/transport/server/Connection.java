/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.metrics.Refusal;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;

/**
 * An authenticated connection as its {@link Session} sees it, accepted by the connection server or
 * opened by this process ({@link ConnectionServer#open}). Every method but {@link #loop()} belongs
 * to the connection's I/O thread.
 */
public interface Connection {
  /** The socket, non-blocking. */
  SocketChannel channel();

  /** The peer's address. */
  InetSocketAddress remote();

  /** The application both sides proved. */
  String application();

  /** The I/O thread's shared buffers. */
  LoopBuffers buffers();

  /**
   * Runs {@code task} on the connection's I/O thread (from any thread); the connection's deadlines
   * are looked at again after it.
   */
  Executor loop();

  /**
   * The session's {@link Session#deadline} may have come earlier than the I/O thread waits for (a
   * READ or call issued from another thread): it looks again. Any thread; cheap when it did not.
   */
  void due(long deadline);

  /** Asks to be told when the socket can take bytes again ({@link Session#writable()}). */
  void wantWrite(boolean on);

  /** Asks to be told when the socket has bytes ({@link Session#readable()}); on at the start. */
  void wantRead(boolean on);

  /** Bytes arrived: the connection is not idle (this is no progress of its sends). */
  void received();

  /** Bytes were sent: the connection is neither idle nor stalled. */
  void progressed();

  /** Closes the connection; counts and logs {@code why} when not null (a refusal). */
  void close(Refusal why, String detail);
}
