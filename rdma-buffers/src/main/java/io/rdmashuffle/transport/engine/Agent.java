/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

/**
 * The work of one loop thread, run by an {@link AgentRunner} (Agrona's {@code Agent}): the runner
 * calls {@link #onStart()} once, then {@link #doWork()} until it is closed, then {@link #onClose()}
 * once, all on its thread. An agent with a way of its own to wait for work (a selector, an event
 * channel, an accept) waits inside {@code doWork()}, at most until its next deadline, and {@link
 * #wake()} ends that wait; an agent without one returns 0 and lets the runner's {@link
 * IdleStrategy} wait. What escapes a round goes to the runner's error handler and the loop goes on;
 * an agent that is done throws {@link Termination}.
 */
public interface Agent {
  /** Before the first round, on the runner's thread. */
  default void onStart() {}

  /**
   * One round: does what is due and returns how much it did (0: nothing; the idle strategy waits).
   *
   * @throws Termination when the agent has ended (the runner calls {@link #onClose()} and stops)
   */
  int doWork() throws Exception;

  /** After the last round, on the runner's thread: release what the agent holds. */
  default void onClose() {}

  /** The thread's name: what this loop is. */
  String roleName();

  /** Ends a wait inside {@link #doWork()} (any thread); the runner calls it to stop the loop. */
  default void wake() {}

  /** Thrown by {@link #doWork()} of an agent that has ended: no error, the loop stops. */
  final class Termination extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Termination(String why) {
      super(why, null, false, false);
    }
  }
}
