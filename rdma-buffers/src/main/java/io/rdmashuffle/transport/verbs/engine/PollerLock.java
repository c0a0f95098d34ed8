/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The right to run a {@link VerbsAgent}'s duty cycle: whoever holds it polls the completion queue
 * and delivers completions, so every completion is taken and delivered by exactly one thread, and
 * what the agent keeps between rounds (its completion batch, ended READs, deferred doorbells, the
 * channels' agent-side fields) is touched by one thread at a time, with the lock's hand-over
 * ordering their writes. The agent thread takes it (waiting); readers about to block try it and
 * poll only when it is free. Also counts the readers polling, so the agent thread can leave them
 * the CPU instead of spinning beside them.
 */
final class PollerLock {
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicInteger helpers = new AtomicInteger();

  /** A reader polled since the agent thread last asked. */
  private volatile boolean helped;

  void lock() {
    lock.lock();
  }

  boolean tryLock() {
    return lock.tryLock();
  }

  void unlock() {
    lock.unlock();
  }

  boolean isHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }

  private void helperIn() {
    helpers.incrementAndGet();
    helped = true;
  }

  private void helperOut() {
    helpers.decrementAndGet();
  }

  /**
   * How many of the agent thread's asks in a row find no reader polling before it stops parking
   * beside readers. A reader that posts a READ and waits for it, then the next, leaves gaps between
   * its polls; one ask falling into a gap is no sign it left, and leaving the parks beside readers
   * costs a spin, then a completion event per READ that wakes the agent thread while the reader is
   * finding its completion itself.
   */
  static final int QUIET_ASKS = 16;

  /** Asks in a row that found no reader polling (agent thread only). */
  private int quietAsks = QUIET_ASKS;

  /**
   * Whether readers poll: one polls now, or one did within the last {@link #QUIET_ASKS} calls
   * (agent thread).
   */
  boolean readersActive() {
    if (helped || helpers.get() > 0) {
      helped = false;
      quietAsks = 0;
      return true;
    }
    if (quietAsks < QUIET_ASKS) {
      quietAsks++;
    }
    return quietAsks < QUIET_ASKS;
  }

  /**
   * A reader about to block: until {@code ready} holds or {@code budgetNanos} passed (counted from
   * its eighth try), runs {@code round} whenever the lock is free, spinning between tries. Returns
   * whether {@code ready} holds.
   */
  boolean help(BooleanSupplier ready, long budgetNanos, Runnable round) {
    if (ready.getAsBoolean() || lock.isHeldByCurrentThread()) {
      return ready.getAsBoolean(); // already done, or asked inside a round (by a listener)
    }
    if (budgetNanos <= 0) {
      return false;
    }
    // the clock is first read after 8 rounds: a READ that completes sooner costs no clock read
    // (in an emulated guest reading it costs more than a poll)
    long deadline = 0;
    helperIn();
    try {
      for (int spins = 1; ; spins++) {
        // the agent thread waiting for the lock (commands, timeouts) goes first: never starved
        if (!lock.hasQueuedThreads() && lock.tryLock()) {
          try {
            round.run();
          } finally {
            lock.unlock();
          }
        }
        if (ready.getAsBoolean()) {
          return true;
        }
        if ((spins & 7) == 0) {
          long now = System.nanoTime();
          if (spins == 8) {
            deadline = now + budgetNanos;
          } else if (now - deadline >= 0) {
            return false;
          }
        }
        Thread.onSpinWait();
      }
    } finally {
      helperOut();
    }
  }
}
