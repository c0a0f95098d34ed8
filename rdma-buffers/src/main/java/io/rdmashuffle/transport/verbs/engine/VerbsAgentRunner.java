/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.engine.Agent;
import io.rdmashuffle.transport.engine.AgentRunner;
import io.rdmashuffle.transport.engine.CountedErrorHandler;
import io.rdmashuffle.transport.engine.IdleStrategy;
import io.rdmashuffle.transport.engine.SpinThenParkIdleStrategy;

/**
 * A {@link VerbsAgent}'s duty cycle as an {@link Agent}, on an {@link AgentRunner}: {@code
 * doWork()}, then idle by a {@link SpinThenParkIdleStrategy} that spins and yields briefly and then
 * blocks on the completion channel (woken at once by a completion, or by a command handed in
 * through the wake-up event). While readers poll the completion queue themselves ({@link
 * VerbsAgent#help}) it does not spin beside them: an idle round then parks at once, briefly and
 * without arming the completion queue ({@link VerbsAgent#parkBesideReaders}). An error escaping a
 * round goes to the transport's error handler (counted as an engine error, logged) and the loop
 * goes on; when the loop stops the agent ends every channel.
 */
public final class VerbsAgentRunner implements Agent {
  /** Idle rounds spent spinning before yielding: a few microseconds. */
  static final int SPINS = 64;

  /**
   * Then how long idle rounds yield before blocking: a completion that comes within it is found by
   * polling, without the completion channel's wake-up.
   */
  static final long YIELD_NANOS = 50_000;

  private final VerbsAgent agent;
  private final CompletionQueue cq;
  private final String name;
  private final AgentRunner runner;

  public VerbsAgentRunner(
      VerbsAgent agent, CompletionQueue cq, TransportMetrics metrics, String threadName) {
    this.agent = agent;
    this.cq = cq;
    this.name = threadName;
    int park = agent.parkMillis();
    SpinThenParkIdleStrategy spin =
        new SpinThenParkIdleStrategy(SPINS, YIELD_NANOS, () -> agent.park(park));
    IdleStrategy idle =
        new IdleStrategy() {
          @Override
          public void idle(int work) {
            if (work == 0 && agent.readersActive()) {
              spin.reset();
              agent.parkBesideReaders();
            } else {
              spin.idle(work);
            }
          }

          @Override
          public void reset() {
            spin.reset();
          }
        };
    this.runner = new AgentRunner(this, idle, new CountedErrorHandler(metrics::engineError));
  }

  public void start() {
    runner.start();
  }

  @Override
  public String roleName() {
    return name;
  }

  @Override
  public int doWork() {
    return agent.doWork();
  }

  /** The loop stopped: every channel ends, its READs failed. */
  @Override
  public void onClose() {
    agent.shutdown("transport closed");
  }

  @Override
  public void wake() {
    cq.wake();
  }

  /**
   * Stops the agent's thread after it broke every channel, and waits for it. Returns whether it
   * ended: while it runs it may still poll the completion queue, which must then not be destroyed.
   */
  public boolean stop() {
    return runner.close(30_000);
  }
}
