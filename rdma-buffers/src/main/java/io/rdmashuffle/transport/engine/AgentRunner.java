/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

/**
 * Runs one {@link Agent} on a thread of its own (Agrona's {@code AgentRunner}): {@code onStart},
 * then rounds of {@code doWork} each followed by the {@link IdleStrategy}, then {@code onClose};
 * whatever escapes a round goes to the {@link ErrorHandler} and the loop goes on (after an {@link
 * Error}, such as running out of memory, a short pause gives the rest of the process a moment).
 * {@link #close} stops it and waits for it: the one stop and join of every loop thread of the
 * transport. Daemon threads; one runner per agent.
 */
public final class AgentRunner implements AutoCloseable {
  /** Waits in the agent's own {@code doWork}: for agents that block there. */
  public static final IdleStrategy NO_IDLE =
      new IdleStrategy() {
        @Override
        public void idle(int workCount) {}

        @Override
        public void reset() {}
      };

  private static final long ERROR_PAUSE_MILLIS = 10;

  private final Agent agent;
  private final IdleStrategy idle;
  private final ErrorHandler errors;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean started;

  public AgentRunner(Agent agent, IdleStrategy idle, ErrorHandler errors) {
    this.agent = agent;
    this.idle = idle;
    this.errors = errors;
    this.thread = new Thread(this::run, agent.roleName());
    thread.setDaemon(true);
  }

  /** Starts the thread. */
  public AgentRunner start() {
    started = true;
    thread.start();
    return this;
  }

  /** Whether the calling thread is this runner's. */
  public boolean onThread() {
    return Thread.currentThread() == thread;
  }

  /** Whether the loop was not told to stop yet (its thread may still be starting). */
  public boolean isRunning() {
    return running;
  }

  private void run() {
    try {
      agent.onStart();
    } catch (Throwable t) {
      errors.onError(agent, t);
      running = false;
    }
    while (running) {
      int work;
      try {
        work = agent.doWork();
      } catch (Agent.Termination end) {
        break;
      } catch (Throwable t) {
        errors.onError(agent, t);
        if (t instanceof Error) {
          pause();
        }
        work = 1;
      }
      idle.idle(work);
    }
    running = false;
    try {
      agent.onClose();
    } catch (Throwable t) {
      errors.onError(agent, t);
    }
  }

  /**
   * Stops the loop (it ends its round, then closes the agent) and waits up to {@code timeoutMillis}
   * for the thread; from the runner's own thread it only asks. Returns whether the thread has ended
   * (or never started): while it runs it may still use what the agent holds. Idempotent.
   */
  public boolean close(long timeoutMillis) {
    running = false;
    if (!started) {
      return true;
    }
    agent.wake();
    if (onThread()) {
      return false;
    }
    try {
      thread.join(timeoutMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !thread.isAlive();
  }

  /** {@link #close(long)} with 5 seconds. */
  @Override
  public void close() {
    close(5000);
  }

  private static void pause() {
    try {
      Thread.sleep(ERROR_PAUSE_MILLIS);
    } catch (InterruptedException e) {
      // not restored: the loop stops only through close()
    }
  }
}
