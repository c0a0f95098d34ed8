/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import java.util.function.LongSupplier;

/**
 * Spins with {@link Thread#onSpinWait()} for a few idle rounds, then yields the CPU for at most a
 * short time (to whatever else is runnable there: where the NIC is software, the kernel moving the
 * bytes), then parks through a {@link Parker} that knows what may wake the thread (for verbs: the
 * completion channel, or a wake-up event written by a thread that handed it work). Spinning costs
 * less than a park and unpark when the next completion comes within microseconds; parking gives the
 * CPU back (to the kernel that moves the bytes, where the NIC is software) when it does not.
 *
 * <p>Owned by one engine thread; not thread-safe.
 */
public final class SpinThenParkIdleStrategy implements IdleStrategy {
  /** Blocks until something may have work for the engine, or for at most its own timeout. */
  @FunctionalInterface
  public interface Parker {
    void park();
  }

  private final int maxSpins;
  private final long maxYieldNanos;
  private final Parker parker;
  private final LongSupplier clock;
  private int spins;

  /** When the yielding began; 0 while spinning. */
  private long yieldingSince;

  public SpinThenParkIdleStrategy(int maxSpins, Parker parker) {
    this(maxSpins, 0, parker);
  }

  /**
   * @param maxSpins idle rounds spent spinning
   * @param maxYieldNanos then, how long idle rounds yield before one parks (0: none)
   */
  public SpinThenParkIdleStrategy(int maxSpins, long maxYieldNanos, Parker parker) {
    this(maxSpins, maxYieldNanos, parker, System::nanoTime);
  }

  /** With the clock of its yielding time (tests). */
  SpinThenParkIdleStrategy(int maxSpins, long maxYieldNanos, Parker parker, LongSupplier clock) {
    if (maxSpins < 0 || maxYieldNanos < 0) {
      throw new IllegalArgumentException(
          "maxSpins=" + maxSpins + ", maxYieldNanos=" + maxYieldNanos + ": must not be negative");
    }
    this.maxSpins = maxSpins;
    this.maxYieldNanos = maxYieldNanos;
    this.parker = parker;
    this.clock = clock;
  }

  @Override
  public void idle(int workCount) {
    if (workCount > 0) {
      reset();
      return;
    }
    if (spins < maxSpins) {
      spins++;
      Thread.onSpinWait();
      return;
    }
    if (maxYieldNanos > 0) {
      long now = clock.getAsLong();
      if (yieldingSince == 0) {
        yieldingSince = now;
      }
      if (now - yieldingSince < maxYieldNanos) {
        Thread.yield();
        return;
      }
    }
    reset();
    parker.park();
  }

  @Override
  public void reset() {
    spins = 0;
    yieldingSince = 0;
  }
}
