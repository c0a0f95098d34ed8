package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.engine.IdleStrategy;
import io.rdmashuffle.transport.engine.SpinThenParkIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that runs a {@link VerbsAgent}'s duty cycle: {@code doWork()}, then idle by a {@link
 * SpinThenParkIdleStrategy} that spins and yields briefly and then blocks on the completion channel
 * (woken at once by a completion, or by a command handed in through the wake-up event). While
 * readers poll the completion queue themselves ({@link VerbsAgent#help}) it does not spin beside
 * them: an idle round then parks at once, briefly and without arming the completion queue ({@link
 * VerbsAgent#parkBesideReaders}). An error escaping a round is logged and counted as an engine
 * error, and the loop goes on.
 */
public final class VerbsAgentRunner implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsAgentRunner.class);

  /** Idle rounds spent spinning before yielding: a few microseconds. */
  static final int SPINS = 64;

  /**
   * Then how long idle rounds yield before blocking: a completion that comes within it is found by
   * polling, without the completion channel's wake-up.
   */
  static final long YIELD_NANOS = 50_000;

  private final VerbsAgent agent;
  private final CompletionQueue cq;
  private final TransportMetrics metrics;
  private final IdleStrategy idle;
  private final Thread thread;
  private volatile boolean running = true;

  public VerbsAgentRunner(
      VerbsAgent agent, CompletionQueue cq, TransportMetrics metrics, String threadName) {
    this.agent = agent;
    this.cq = cq;
    this.metrics = metrics;
    int park = agent.parkMillis();
    this.idle = new SpinThenParkIdleStrategy(SPINS, YIELD_NANOS, () -> agent.park(park));
    this.thread = new Thread(this, threadName);
    thread.setDaemon(true);
  }

  public void start() {
    thread.start();
  }

  @Override
  public void run() {
    while (running) {
      int work;
      try {
        work = agent.doWork();
      } catch (RuntimeException | Error e) {
        metrics.engineError();
        LOG.error("verbs engine error (continuing)", e);
        work = 1;
      }
      if (work == 0 && agent.readersActive()) {
        idle.reset();
        agent.parkBesideReaders();
      } else {
        idle.idle(work);
      }
    }
    try {
      agent.shutdown("transport closed");
    } catch (RuntimeException | Error e) {
      metrics.engineError();
      LOG.error("verbs engine error while closing its channels", e);
    }
  }

  /**
   * Stops the agent's thread after it broke every channel, and waits for it. Returns whether it
   * ended: while it runs it may still poll the completion queue, which must then not be destroyed.
   */
  public boolean stop() {
    running = false;
    cq.wake();
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !thread.isAlive();
  }
}
