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
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One I/O thread of the connection server, as an {@link Agent}: a selector loop that drives its
 * share of the connections (handshakes, requests, sends, calls and READs in both directions)
 * without blocking, runs tasks handed to it by other threads (each before the ready keys it comes
 * ahead of), and checks its connections when the earliest of their deadlines comes. Between events
 * it sleeps until that deadline, or for good when it has none: an idle process's I/O threads do not
 * wake. A connection whose deadline comes earlier than the one the loop sleeps to says so ({@link
 * #due}, any thread). An error while handling a connection closes that connection; one escaping a
 * round goes to the runner's error handler, and the loop goes on. Owned by {@link
 * ConnectionServer}.
 */
final class IoLoop implements Agent, Executor {
  private static final long NONE = Long.MAX_VALUE;

  private final ConnectionServer server;
  private final String name;
  private final Selector selector;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final LoopBuffers buffers = new LoopBuffers();
  private final Consumer<SelectionKey> dispatch = this::dispatch;
  private final AgentRunner runner;

  /** When the connections must be checked next (nanoTime); {@link #NONE} when never. */
  private final AtomicLong checkAt = new AtomicLong(NONE);

  /** Whether the loop may be blocked in a select (a wake-up is needed to move it). */
  private volatile boolean sleeping;

  private volatile boolean stopping;

  IoLoop(ConnectionServer server, int index, ErrorHandler errors) throws IOException {
    this.server = server;
    this.name = "rdma-io-" + server.address().port() + "-" + index;
    this.selector = Selector.open();
    this.runner = new AgentRunner(this, AgentRunner.NO_IDLE, errors);
  }

  void start() {
    runner.start();
  }

  LoopBuffers buffers() {
    return buffers;
  }

  boolean inLoop() {
    return runner.onThread();
  }

  @Override
  public String roleName() {
    return name;
  }

  /** Runs {@code task} on this loop's thread; dropped once the loop has stopped. */
  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    selector.wakeup();
  }

  /**
   * Asks for the connections to be checked at {@code deadline} (nanoTime) at the latest; wakes the
   * loop when it sleeps longer. Any thread.
   */
  void due(long deadline) {
    long at;
    while (deadline - (at = checkAt.get()) < 0 || at == NONE) {
      if (checkAt.compareAndSet(at, deadline)) {
        if (sleeping && !inLoop()) {
          selector.wakeup();
        }
        return;
      }
    }
  }

  /** Hands a connection to this loop; closed (as shut down) when the loop has stopped. */
  void register(LoopConnection c) {
    execute(
        () -> {
          try {
            c.attach(this, selector);
          } catch (IOException | RuntimeException e) {
            c.failed(e);
          }
        });
    if (stopping) {
      runTasks(); // a racing close: make sure the connection does not linger unregistered
    }
  }

  @Override
  public int doWork() throws IOException {
    if (stopping) {
      throw new Termination("closed");
    }
    int n;
    try {
      // sleeping first: a deadline brought earlier after checkAt is read finds it set and wakes
      sleeping = true;
      long at = checkAt.get();
      try {
        if (!tasks.isEmpty()) {
          n = selector.selectNow(dispatch);
        } else if (at == NONE) {
          n = selector.select(dispatch, 0); // nothing due: until an event or a wake-up
        } else {
          long wait = at - System.nanoTime();
          n =
              wait <= 0
                  ? selector.selectNow(dispatch)
                  : selector.select(
                      dispatch, Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait + 999_999)));
        }
      } finally {
        sleeping = false;
      }
    } catch (ClosedSelectorException e) {
      throw new Termination("selector closed");
    }
    runTasks();
    long at = checkAt.get();
    if (at != NONE && System.nanoTime() - at >= 0 && checkAt.compareAndSet(at, NONE)) {
      checkAll(System.nanoTime());
    }
    return n;
  }

  @Override
  public void wake() {
    stopping = true;
    selector.wakeup();
  }

  private void dispatch(SelectionKey k) {
    if (!tasks.isEmpty()) {
      // a task handed over before this key became ready (a withdrawal closing connections) goes
      // before what the connection sent after it
      runTasks();
    }
    LoopConnection c = (LoopConnection) k.attachment();
    try {
      if (k.isValid() && !c.closed) {
        c.ready(k.readyOps());
      }
    } catch (Throwable t) {
      failed(c, t);
    }
  }

  private void failed(LoopConnection c, Throwable t) {
    try {
      c.failed(t);
    } catch (Throwable again) {
      c.closeChannel();
    }
  }

  private void runTasks() {
    Runnable r;
    while ((r = tasks.poll()) != null) {
      try {
        r.run();
      } catch (Throwable t) {
        server.log().refused(Refusal.CONNECTION_FAILED, name, "a task of the I/O loop failed", t);
      }
    }
  }

  /** Checks every connection; asks to be back at the earliest deadline they name. */
  private void checkAll(long now) {
    long next = NONE;
    for (SelectionKey k : selector.keys()) {
      LoopConnection c = (LoopConnection) k.attachment();
      if (!c.closed) {
        try {
          long d = c.check(now);
          if (!c.closed && d != NONE && (next == NONE || d - next < 0)) {
            next = d;
          }
        } catch (Throwable t) {
          failed(c, t);
        }
      }
    }
    if (next != NONE) {
      due(next);
    }
  }

  /** On this loop's thread: closes the authenticated connections of {@code application}. */
  void closeApplication(String application) {
    List<ServerConnection> theirs = new ArrayList<>();
    for (SelectionKey k : selector.keys()) {
      if (k.attachment() instanceof ServerConnection c
          && !c.closed
          && application.equals(c.application())) {
        theirs.add(c);
      }
    }
    for (ServerConnection c : theirs) {
      c.close(null, "application " + application + " withdrawn");
    }
  }

  /** The loop's last act: every connection closed (as shut down), its buffers freed. */
  @Override
  public void onClose() {
    List<LoopConnection> all = new ArrayList<>();
    try {
      for (SelectionKey k : selector.keys()) {
        all.add((LoopConnection) k.attachment());
      }
    } catch (ClosedSelectorException e) {
      // nothing registered any more
    }
    for (LoopConnection c : all) {
      try {
        c.shutdown();
      } catch (Throwable t) {
        c.closeChannel();
      }
    }
    runTasks();
    buffers.free();
    try {
      selector.close();
    } catch (IOException e) {
      // the loop is gone either way
    }
  }

  /**
   * Stops the loop: its connections are closed; waits up to 5 s for the thread (from the loop's own
   * thread it only asks: the round ends, then the loop closes what it holds).
   */
  void close() {
    stopping = true;
    if (runner.close(5000) && selector.isOpen()) {
      // never started: nothing ran onClose
      buffers.free();
      try {
        selector.close();
      } catch (IOException e) {
        // never used
      }
    }
  }
}
