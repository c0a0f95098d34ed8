/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.HandshakeSide;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;

/**
 * A non-blocking connection driven by one {@link IoLoop}: an accepted one ({@link
 * ServerConnection}) or one this process opened ({@link ClientConnection}). First its handshake,
 * then the {@link Session} that drives it, which sees it as a {@link Connection}. It names its next
 * deadline ({@link #deadline()}), and the loop checks it then; a change that brings it earlier
 * (what a session or another thread did) is told to the loop ({@link #rearm()}). Every method but
 * {@link #due} runs on the loop's thread.
 */
abstract class LoopConnection implements Connection {
  static final long NONE = Long.MAX_VALUE;

  final SocketChannel ch;
  IoLoop loop;
  private SelectionKey key;
  private int interest;
  boolean closed;
  long lastActivity = System.nanoTime();
  Session session;
  String application;
  private final Executor onLoop = this::runOnLoop;

  LoopConnection(SocketChannel ch) {
    this.ch = ch;
  }

  /** Registers with the loop's selector; then {@link #attached()}, and arms its deadline. */
  final void attach(IoLoop loop, Selector selector) throws IOException {
    this.loop = loop;
    this.interest = initialInterest();
    this.key = ch.register(selector, interest, this);
    attached();
    rearm();
  }

  /** The selector operations to wait for at first. */
  abstract int initialInterest();

  /** Registered: may start work. */
  void attached() throws IOException {}

  /** The selector found the socket ready for {@code ops}; then the deadline is armed again. */
  final void ready(int ops) throws IOException {
    if (session == null) {
      beforeSession(ops);
    } else {
      try {
        if ((ops & SelectionKey.OP_READ) != 0) {
          session.readable();
        }
        if (!closed && (ops & SelectionKey.OP_WRITE) != 0) {
          session.writable();
        }
      } catch (IOException e) {
        session.broke(e);
        throw e;
      }
    }
    if (!closed) {
      rearm();
    }
  }

  /** Connecting and the handshake: the socket is ready for {@code ops}. */
  abstract void beforeSession(int ops) throws IOException;

  /** Acts on the deadlines that passed at {@code now}; returns the next one ({@link #NONE}). */
  final long check(long now) {
    checkDeadlines(now);
    return closed ? NONE : deadline();
  }

  abstract void checkDeadlines(long now);

  /** The next time {@link #checkDeadlines} has something to do; {@link #NONE} when never. */
  abstract long deadline();

  /** Tells the loop this connection's deadline (it checks sooner when that is earlier). */
  final void rearm() {
    long d = deadline();
    if (d != NONE) {
      loop.due(d);
    }
  }

  static long earliest(long a, long b) {
    return a == NONE ? b : b == NONE ? a : a - b <= 0 ? a : b;
  }

  /** An unexpected error while handling this connection: close it. */
  abstract void failed(Throwable t);

  /** The loop is stopping (the server closes). */
  abstract void shutdown();

  /**
   * Runs the handshake {@code h} as far as the socket allows without blocking, and hands its
   * outcome on: {@link #handshakeRefused} (after sending what the refusal sends, best effort),
   * {@link #verified} (a server side whose peer proved the secret), {@link #handshakeDone}. Called
   * again whenever the socket is ready.
   */
  final void handshake(HandshakeSide h) throws IOException {
    LoopBuffers b = loop.buffers();
    while (!closed) {
      ByteBuffer out = h.out();
      while (out.hasRemaining() && b.write(ch, out) > 0) {
        lastActivity = System.nanoTime();
      }
      interest(SelectionKey.OP_WRITE, out.hasRemaining());
      if (h.refusal() != null) {
        handshakeRefused(h.refusal());
        return;
      }
      if (out.hasRemaining()) {
        return; // the rest when the socket takes it
      }
      if (h.done()) {
        handshakeDone(h.result());
        return;
      }
      if (h.verified()) {
        verified(h);
        continue;
      }
      ByteBuffer in = h.in();
      int n = b.read(ch, in);
      if (n < 0) {
        h.hungUp();
      } else if (n == 0) {
        return;
      } else {
        handshakeBytes(n);
        if (!in.hasRemaining()) {
          h.received();
        }
      }
    }
  }

  /** {@code n} bytes of the handshake arrived. */
  void handshakeBytes(int n) {
    lastActivity = System.nanoTime();
  }

  /** The handshake was refused, by either side: close. */
  abstract void handshakeRefused(Handshake.Refused r);

  /** The peer proved the secret (server side): accept or refuse it. */
  void verified(HandshakeSide h) {
    throw new IllegalStateException("nothing to verify on " + this);
  }

  /** The handshake ended with the connection authenticated: the session takes over. */
  abstract void handshakeDone(Handshake.Result result) throws IOException;

  final void interest(int op, boolean on) {
    int next = on ? interest | op : interest & ~op;
    if (next != interest && key != null && key.isValid()) {
      key.interestOps(next);
      interest = next;
    }
  }

  final boolean wants(int op) {
    return (interest & op) != 0;
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

  private void runOnLoop(Runnable task) {
    loop.execute(
        () -> {
          task.run();
          if (!closed) {
            rearm();
          }
        });
  }

  // ------------------------------------------------------------ Connection

  @Override
  public SocketChannel channel() {
    return ch;
  }

  @Override
  public abstract InetSocketAddress remote();

  @Override
  public String application() {
    return application;
  }

  @Override
  public LoopBuffers buffers() {
    return loop.buffers();
  }

  @Override
  public Executor loop() {
    return onLoop;
  }

  @Override
  public void due(long deadline) {
    loop.due(deadline);
  }

  @Override
  public void wantRead(boolean on) {
    interest(SelectionKey.OP_READ, on);
  }

  @Override
  public void wantWrite(boolean on) {
    interest(SelectionKey.OP_WRITE, on);
  }

  @Override
  public void received() {
    lastActivity = System.nanoTime();
  }

  @Override
  public void progressed() {
    lastActivity = System.nanoTime();
  }
}
