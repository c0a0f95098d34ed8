/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.transport.engine.Agent;
import io.rdmashuffle.transport.engine.AgentRunner;
import io.rdmashuffle.transport.engine.ErrorHandler;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The connection server's accept loop, as an {@link Agent}: each round takes one connection off the
 * listening socket and hands it to {@link ConnectionServer#accepted} (which admits it to an I/O
 * thread or refuses it), so it never waits for a peer. A connection it fails to take or hand over
 * (out of memory, out of descriptors included) is closed and counted as a refusal ({@code
 * ACCEPT_FAILED}), and accepting goes on after a short pause. Closing the listening socket ends it.
 * Owned by {@link ConnectionServer}.
 */
final class Acceptor implements Agent {
  private final ConnectionServer server;
  private final ServerSocketChannel listener;
  private final String name;
  private final AgentRunner runner;
  private volatile boolean closed;

  Acceptor(ConnectionServer server, ServerSocketChannel listener, ErrorHandler errors) {
    this.server = server;
    this.listener = listener;
    this.name = "rdma-accept-" + server.address().port();
    this.runner = new AgentRunner(this, AgentRunner.NO_IDLE, errors);
  }

  void start() {
    runner.start();
  }

  @Override
  public String roleName() {
    return name;
  }

  @Override
  public int doWork() {
    SocketChannel ch = null;
    try {
      ch = listener.accept();
      server.accepted(ch);
      return 1;
    } catch (ClosedChannelException e) {
      if (!closed) {
        failed(ch, e); // closed under us without close(): nothing more will come
      }
      throw new Termination("the listening socket is closed");
    } catch (Throwable t) {
      failed(ch, t);
      // out of descriptors or memory: accepting again at once would spin on the same error
      pause(t instanceof IOException ? 100 : 10);
      return 0;
    }
  }

  private void failed(SocketChannel ch, Throwable t) {
    if (ch != null) {
      try {
        ch.close();
      } catch (Throwable ignored) {
        // the connection is being dropped for the error that is reported
      }
    }
    try {
      server.log().refused(Refusal.ACCEPT_FAILED, "a connection", "accepting failed", t);
    } catch (Throwable ignored) {
      // even logging failed (out of memory): the count is lost, accepting goes on
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      // not restored: an interrupted accept() would close the listening socket, and this thread
      // stops only through close()
    }
  }

  /** Ends a blocked accept: the listening socket closes. */
  @Override
  public void wake() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing
    }
  }

  /** Stops accepting (the listening socket closes) and waits up to 5 s for the thread. */
  void close() {
    runner.close(5000);
  }
}
