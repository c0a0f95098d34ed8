/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.ZII_Result;

/**
 * {@link PollerLock}'s contract: whoever holds it polls, so a completion is taken and delivered by
 * exactly one thread, and what a round touches (here a completion queue of plain fields, as the
 * agent's batch and channel fields are) is never touched by two threads at once. One completion
 * waits in the queue; the agent thread takes the lock (waiting) and runs a round while a reader
 * tries it.
 */
public final class PollerLockTests {
  private PollerLockTests() {}

  /** A completion queue holding one completion, polled only under the lock: plain fields. */
  static final class Queue {
    private int pending = 1;

    /** Takes the completion if it is still there; how many it took. */
    int poll() {
      if (pending > 0) {
        pending--;
        return 1;
      }
      return 0;
    }
  }

  /** The agent thread's {@code lock()} against a reader's {@code tryLock()}. */
  @JCStressTest
  @Description("agent lock() + round vs reader tryLock() + round: one poller at a time")
  @Outcome(
      id = "1, 0, 0",
      expect = ACCEPTABLE,
      desc = "the reader's try found the lock held: the agent polled alone")
  @Outcome(
      id = "1, 0, 1",
      expect = ACCEPTABLE_INTERESTING,
      desc = "the reader got the lock after the agent's round: the completion was taken")
  @Outcome(
      id = "0, 1, 1",
      expect = ACCEPTABLE,
      desc = "the reader got the lock first and took the completion; the agent's round found none")
  @Outcome(expect = FORBIDDEN, desc = "taken twice (both polled at once) or lost")
  @State
  public static class AgentLockVsReaderTryLock {
    final PollerLock lock = new PollerLock();
    final Queue queue = new Queue();

    @Actor
    public void agent(III_Result r) {
      lock.lock();
      try {
        r.r1 = queue.poll();
      } finally {
        lock.unlock();
      }
    }

    @Actor
    public void reader(III_Result r) {
      if (lock.tryLock()) {
        try {
          r.r3 = 1;
          r.r2 = queue.poll();
        } finally {
          lock.unlock();
        }
      }
    }
  }

  /**
   * A reader waiting for its READ in {@link PollerLock#help} (rounds whenever the lock is free)
   * against the agent thread's round: the READ's completion is taken once, by one of them, and the
   * reader sees it delivered (help returns true) whoever took it.
   */
  @JCStressTest
  @Description("reader help() vs agent lock() + round: taken once, the reader sees it")
  @Outcome(
      id = "true, 1, 0",
      expect = ACCEPTABLE,
      desc = "the agent took the completion; the reader saw it delivered")
  @Outcome(id = "true, 0, 1", expect = ACCEPTABLE, desc = "the reader took the completion itself")
  @Outcome(expect = FORBIDDEN, desc = "taken twice or never, or the reader did not see it")
  @State
  public static class ReaderHelpVsAgent {
    /** Far longer than any round: help returns false only if the completion was lost. */
    private static final long BUDGET = TimeUnit.SECONDS.toNanos(10);

    final PollerLock lock = new PollerLock();
    final Queue queue = new Queue();

    /** Set on delivery, read by the waiting reader without the lock (as a READ's state is). */
    volatile boolean delivered;

    private int round() {
      int n = queue.poll();
      if (n > 0) {
        delivered = true;
      }
      return n;
    }

    @Actor
    public void agent(ZII_Result r) {
      lock.lock();
      try {
        r.r2 = round();
      } finally {
        lock.unlock();
      }
    }

    @Actor
    public void reader(ZII_Result r) {
      int[] took = new int[1];
      r.r1 = lock.help(() -> delivered, BUDGET, () -> took[0] += round());
      r.r3 = took[0];
    }
  }
}
