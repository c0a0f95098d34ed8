package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.Refusal;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;

/**
 * An authenticated connection as its {@link Session} sees it. Every method but {@link #loop()}
 * belongs to the connection's I/O thread.
 */
public interface ServedConnection {
  /** The socket, non-blocking. */
  SocketChannel channel();

  /** The peer's address. */
  InetSocketAddress remote();

  /** The application the peer proved. */
  String application();

  /** The I/O thread's shared buffers. */
  LoopBuffers buffers();

  /** Runs {@code task} on the connection's I/O thread (from any thread). */
  Executor loop();

  /** Asks to be told when the socket can take bytes again ({@link Session#writable()}). */
  void wantWrite(boolean on);

  /** Asks to be told when the socket has bytes ({@link Session#readable()}); on at the start. */
  void wantRead(boolean on);

  /** Bytes moved: the connection is neither idle nor stalled. */
  void progressed();

  /** Closes the connection; counts and logs {@code why} when not null (a refusal). */
  void close(Refusal why, String detail);
}
