package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
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
 * The one thread that owns the transport's RDMA-CM event channel: it waits for connection events,
 * acknowledges each at once, and routes it: connect requests to the responder, address and route
 * resolution and connection outcomes to the thread connecting that id, disconnects to the channel's
 * owner; each round of the loop also runs the transport's {@link Events#tick}. Ids are created and
 * destroyed on this thread only (DiSNI keeps its ids in an unsynchronized map it also reads while
 * delivering events); other threads ask with {@link #call}.
 */
final class CmEventLoop implements Runnable {
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
  private final Thread thread;
  private volatile boolean running = true;

  CmEventLoop(RdmaEventChannel channel, Events events) {
    this.channel = channel;
    this.events = events;
    this.thread = new Thread(this, "rdma-verbs-cm");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  boolean onLoopThread() {
    return Thread.currentThread() == thread;
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

  @Override
  public void run() {
    while (running) {
      runCommands();
      try {
        events.tick();
      } catch (RuntimeException e) {
        LOG.error("a round of the RDMA-CM event loop failed", e);
      }
      RdmaCmEvent ev;
      try {
        ev = channel.getCmEvent(WAIT_MILLIS);
      } catch (IOException e) {
        if (running) {
          LOG.warn("waiting for RDMA-CM events failed", e);
          sleepQuietly();
        }
        continue;
      }
      if (ev == null) {
        continue;
      }
      int type = ev.getEvent();
      RdmaCmId id = ev.getConnIdPriv();
      try {
        ev.ackEvent();
      } catch (IOException e) {
        LOG.warn("acknowledging an RDMA-CM event failed", e);
      }
      try {
        dispatch(type, id);
      } catch (RuntimeException e) {
        LOG.error("handling RDMA-CM event {} failed", type, e);
      }
    }
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
    running = false;
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
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
