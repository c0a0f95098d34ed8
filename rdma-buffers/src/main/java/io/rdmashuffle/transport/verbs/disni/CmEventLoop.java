/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.rdmashuffle.transport.engine.Agent;
import io.rdmashuffle.transport.engine.AgentRunner;
import io.rdmashuffle.transport.engine.ErrorHandler;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns the transport's RDMA-CM event channel, as an {@link Agent} on an {@link
 * AgentRunner}: each round runs the commands other threads handed in, the transport's {@link
 * Events#tick}, and waits up to {@value #WAIT_MILLIS} ms for a connection event, which it
 * acknowledges at once and routes: connect requests to the responder, address and route resolution
 * and connection outcomes to the thread connecting that id, disconnects to the channel's owner.
 * What escapes a round goes to the transport's error handler (counted, logged) and the loop goes
 * on. Ids are created and destroyed on this thread only (DiSNI keeps its ids in an unsynchronized
 * map it also reads while delivering events); other threads ask with {@link #call}.
 */
final class CmEventLoop implements Agent {
  private static final Logger LOG = LoggerFactory.getLogger(CmEventLoop.class);
  private static final int WAIT_MILLIS = 10;

  /** What the loop tells its transport. */
  interface Events {
    void connectRequest(RdmaCmId id);

    void disconnected(RdmaCmId id);

    void deviceRemoved();

    /** Time-driven work, once per round of the loop: after each event, or 10 ms without one. */
    void tick();
  }

  private final RdmaEventChannel channel;
  private final Events events;
  private final Map<RdmaCmId, BlockingQueue<Integer>> waiters = new ConcurrentHashMap<>();
  private final ArrayDeque<Runnable> commands = new ArrayDeque<>();
  private final AgentRunner runner;

  /** Whether commands are taken; guarded by {@link #commands}. */
  private boolean running = true;

  CmEventLoop(RdmaEventChannel channel, Events events, ErrorHandler errors) {
    this.channel = channel;
    this.events = events;
    this.runner = new AgentRunner(this, AgentRunner.NO_IDLE, errors);
  }

  void start() {
    runner.start();
  }

  boolean onLoopThread() {
    return runner.onThread();
  }

  @Override
  public String roleName() {
    return "rdma-verbs-cm";
  }

  /** Runs {@code work} on the loop thread and waits for its result. */
  <T> T call(IoCallable<T> work, long timeoutMillis) throws IOException {
    if (onLoopThread()) {
      return work.call();
    }
    CompletableFuture<T> f = new CompletableFuture<>();
    synchronized (commands) {
      if (!running) {
        throw new IOException("the RDMA-CM event loop is stopped");
      }
      commands.addLast(
          () -> {
            try {
              f.complete(work.call());
            } catch (IOException | RuntimeException e) {
              f.completeExceptionally(e);
            }
          });
    }
    try {
      return f.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    } catch (TimeoutException e) {
      throw new IOException(
          "the RDMA-CM event loop did not answer within " + timeoutMillis + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Runs {@code work} on the loop thread later; failures are logged. */
  void later(IoRunnable work) {
    synchronized (commands) {
      if (!running) {
        return;
      }
      commands.addLast(
          () -> {
            try {
              work.run();
            } catch (IOException | RuntimeException e) {
              LOG.debug("RDMA-CM command failed", e);
            }
          });
    }
  }

  /** An I/O action. */
  interface IoCallable<T> {
    T call() throws IOException;
  }

  /** An I/O action without result. */
  interface IoRunnable {
    void run() throws IOException;
  }

  /** Creates an id on this channel (loop thread) and starts collecting its events. */
  RdmaCmId createId(long timeoutMillis) throws IOException {
    return call(
        () -> {
          RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
          waiters.put(id, new ArrayBlockingQueue<>(16));
          return id;
        },
        timeoutMillis);
  }

  /**
   * Waits for the next event of {@code id} until {@code deadlineNanos}.
   *
   * @return the event type, or -1 on timeout
   */
  int awaitEvent(RdmaCmId id, long deadlineNanos) throws InterruptedException {
    BlockingQueue<Integer> q = waiters.get(id);
    if (q == null) {
      return -1;
    }
    Integer e = q.poll(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    return e == null ? -1 : e;
  }

  /** Disconnects and destroys {@code id} on the loop thread (its queue pair must be gone). */
  void destroyLater(RdmaCmId id) {
    if (waiters.remove(id) == null) {
      return; // already destroyed (or asked to be): a second rdma_destroy_id frees it twice
    }
    later(() -> destroyNow(id));
  }

  static void destroyNow(RdmaCmId id) {
    try {
      id.disconnect();
    } catch (IOException | RuntimeException e) {
      // not connected: nothing to disconnect
    }
    try {
      id.destroyId();
    } catch (IOException | RuntimeException e) {
      LOG.debug("destroying an RDMA-CM id failed", e);
    }
  }

  /**
   * One round: the commands handed in, the transport's tick, then up to {@value #WAIT_MILLIS} ms
   * waiting for an event, which is acknowledged and routed.
   */
  @Override
  public int doWork() throws IOException {
    runCommands();
    events.tick();
    RdmaCmEvent ev;
    try {
      ev = channel.getCmEvent(WAIT_MILLIS);
    } catch (IOException e) {
      if (runner.isRunning()) {
        sleepQuietly(); // a broken channel would fail at once, round after round
      }
      throw e;
    }
    if (ev == null) {
      return 0;
    }
    int type = ev.getEvent();
    RdmaCmId id = ev.getConnIdPriv();
    try {
      ev.ackEvent();
    } catch (IOException e) {
      LOG.warn("acknowledging an RDMA-CM event failed", e);
    }
    dispatch(type, id);
    return 1;
  }

  /** The loop's last act: what was asked of it before it stopped. */
  @Override
  public void onClose() {
    runCommands();
  }

  private void dispatch(int type, RdmaCmId id) {
    RdmaCmEvent.EventType[] all = RdmaCmEvent.EventType.values();
    RdmaCmEvent.EventType t = type >= 0 && type < all.length ? all[type] : null;
    if (t == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST) {
      events.connectRequest(id);
      return;
    }
    if (t == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL) {
      events.deviceRemoved();
      return;
    }
    BlockingQueue<Integer> q = id == null ? null : waiters.get(id);
    if (q != null) {
      q.offer(type);
    }
    if (t == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED) {
      events.disconnected(id);
    }
  }

  private void runCommands() {
    while (true) {
      Runnable c;
      synchronized (commands) {
        c = commands.pollFirst();
      }
      if (c == null) {
        return;
      }
      c.run();
    }
  }

  /**
   * Stops the loop after running what was asked of it; waits for it. Returns whether it ended:
   * while it runs it may still wait for events on the channel, which must then not be destroyed.
   */
  boolean stop() {
    synchronized (commands) {
      running = false;
    }
    if (!runner.close(30_000)) {
      return false;
    }
    runCommands(); // queued after the loop's last round; no other thread runs them now
    return true;
  }

  private static void sleepQuietly() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
