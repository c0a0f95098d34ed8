package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.Refusal;
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
import java.util.function.Consumer;

/**
 * One I/O thread of the connection server: a selector loop that drives its share of the connections
 * (handshakes, requests, sends, calls in both directions) without blocking, checks their deadlines
 * every tick, and runs tasks handed to it by other threads, each before the ready keys it comes
 * ahead of. It survives any error: an error while handling a connection closes that connection, any
 * other is logged, counted and the loop goes on. Owned by {@link ConnectionServer}.
 */
final class IoLoop implements Runnable, Executor {
  private final ConnectionServer server;
  private final Selector selector;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final LoopBuffers buffers = new LoopBuffers();
  private final long tickNanos;
  private final Consumer<SelectionKey> dispatch = this::dispatch;
  private final Thread thread;
  private volatile boolean stopping;
  private long lastCheck = System.nanoTime();

  IoLoop(ConnectionServer server, int index, long tickNanos) throws IOException {
    this.server = server;
    this.tickNanos = tickNanos;
    this.selector = Selector.open();
    this.thread = new Thread(this, "rdma-io-" + server.address().port() + "-" + index);
    thread.setDaemon(true);
  }

  private volatile boolean started;

  void start() {
    started = true;
    thread.start();
  }

  LoopBuffers buffers() {
    return buffers;
  }

  boolean inLoop() {
    return Thread.currentThread() == thread;
  }

  /** Runs {@code task} on this loop's thread; dropped once the loop has stopped. */
  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    selector.wakeup();
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
  public void run() {
    long tickMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(tickNanos));
    while (!stopping) {
      try {
        selector.select(dispatch, tickMillis);
        runTasks();
        long now = System.nanoTime();
        if (now - lastCheck >= tickNanos) {
          lastCheck = now;
          checkAll(now);
        }
      } catch (ClosedSelectorException e) {
        break;
      } catch (Throwable t) {
        server
            .log()
            .refused(
                Refusal.CONNECTION_FAILED,
                Thread.currentThread().getName(),
                "unexpected error in the I/O loop; it goes on",
                t);
        if (t instanceof Error) {
          pause(); // out of memory: give the rest of the process a moment
        }
      }
    }
    shutdownAll();
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
        server
            .log()
            .refused(
                Refusal.CONNECTION_FAILED,
                Thread.currentThread().getName(),
                "a task of the I/O loop failed",
                t);
      }
    }
  }

  private void checkAll(long now) {
    for (SelectionKey k : selector.keys()) {
      LoopConnection c = (LoopConnection) k.attachment();
      if (!c.closed) {
        try {
          c.check(now);
        } catch (Throwable t) {
          failed(c, t);
        }
      }
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

  private void shutdownAll() {
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

  /** Stops the loop: its connections are closed; waits up to 5 s for the thread. */
  void close() {
    stopping = true;
    if (!started) {
      try {
        selector.close();
      } catch (IOException e) {
        // never used
      }
      return;
    }
    selector.wakeup();
    if (!inLoop()) {
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      // not restored: a pending interrupt would make every select return at once; this thread
      // stops only through close()
    }
  }
}
