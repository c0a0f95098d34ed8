package io.rdmashuffle.transport.server;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A non-blocking connection driven by one {@link IoLoop}: an accepted one ({@link
 * ServerConnection}) or one this process opened for calls ({@link CallConnection}). Every method
 * runs on the loop's thread.
 */
abstract class LoopConnection {
  final SocketChannel ch;
  IoLoop loop;
  private SelectionKey key;
  private int interest;
  boolean closed;
  long lastActivity = System.nanoTime();

  LoopConnection(SocketChannel ch) {
    this.ch = ch;
  }

  /** Registers with the loop's selector; then {@link #attached()}. */
  final void attach(IoLoop loop, Selector selector) throws IOException {
    this.loop = loop;
    this.interest = initialInterest();
    this.key = ch.register(selector, interest, this);
    attached();
  }

  /** The selector operations to wait for at first. */
  abstract int initialInterest();

  /** Registered: may start work. */
  void attached() throws IOException {}

  /** The selector found the socket ready for {@code ops}. */
  abstract void ready(int ops) throws IOException;

  /** The periodic check of deadlines. */
  abstract void check(long now);

  /** An unexpected error while handling this connection: close it. */
  abstract void failed(Throwable t);

  /** The loop is stopping (the server closes). */
  abstract void shutdown();

  final void interest(int op, boolean on) {
    int next = on ? interest | op : interest & ~op;
    if (next != interest && key != null && key.isValid()) {
      key.interestOps(next);
      interest = next;
    }
  }

  /** Closes the socket and leaves the selector; idempotent. */
  final void closeChannel() {
    closed = true;
    if (key != null) {
      key.cancel();
    }
    try {
      ch.close();
    } catch (IOException e) {
      // closing after the failure that is being reported
    }
  }
}
