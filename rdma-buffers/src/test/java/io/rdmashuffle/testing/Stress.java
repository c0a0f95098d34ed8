/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Bounded concurrency stress for tests run in every build: threads race on shared state for a fixed
 * time budget (a few seconds), and the first failure of any thread fails the test with its stack.
 * Not a model checker: it finds races by repetition, so an invariant it checks must hold in every
 * interleaving, and a run that finds nothing proves nothing beyond its rounds.
 */
public final class Stress {
  /** How long any one wait may take before the run is declared hung. */
  private static final long HANG_SECONDS = 60;

  private Stress() {}

  /** One thread's work, repeated until the budget is spent. */
  @FunctionalInterface
  public interface Loop {
    void once() throws Exception;
  }

  /** One round of a race: every actor runs once, all released together. */
  public interface Round {
    /** The actors of this round; the same number every round. */
    List<Loop> actors();

    /** After every actor finished: the invariants of the round. */
    void check() throws Exception;
  }

  /**
   * Runs each loop on its own thread, over and over, until {@code budget} has passed; returns how
   * many times each ran.
   */
  public static long[] loops(Duration budget, Loop... loops) throws Exception {
    long deadline = System.nanoTime() + budget.toNanos();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long[] counts = new long[loops.length];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < loops.length; i++) {
      final int id = i;
      threads.add(
          new Thread(
              () -> {
                try {
                  while (failure.get() == null && System.nanoTime() < deadline) {
                    loops[id].once();
                    counts[id]++;
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                }
              },
              "stress-" + i));
    }
    join(threads, failure);
    return counts;
  }

  /**
   * Plays rounds built by {@code rounds} until {@code budget} has passed or {@code maxRounds} were
   * played: in each, one thread per actor waits at a barrier, runs its actor once, and waits again;
   * then {@link Round#check()} runs. Returns the number of rounds played.
   */
  public static int rounds(
      Duration budget, int maxRounds, java.util.function.Supplier<Round> rounds) throws Exception {
    long deadline = System.nanoTime() + budget.toNanos();
    Round first = rounds.get();
    int n = first.actors().size();
    CyclicBarrier barrier = new CyclicBarrier(n + 1);
    AtomicReference<Round> current = new AtomicReference<>(first);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      final int id = i;
      threads.add(
          new Thread(
              () -> {
                try {
                  while (true) {
                    barrier.await(HANG_SECONDS, TimeUnit.SECONDS);
                    Round r = current.get();
                    if (r == null) {
                      return;
                    }
                    try {
                      r.actors().get(id).once();
                    } finally {
                      barrier.await(HANG_SECONDS, TimeUnit.SECONDS);
                    }
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                  barrier.reset();
                }
              },
              "stress-round-" + i));
    }
    threads.forEach(Thread::start);
    int played = 0;
    try {
      Round r = first;
      while (true) {
        await(barrier, failure);
        await(barrier, failure);
        played++;
        r.check();
        if (played >= maxRounds || System.nanoTime() >= deadline) {
          break;
        }
        r = rounds.get();
        if (r.actors().size() != n) {
          throw new IllegalArgumentException("actors=" + r.actors().size() + ": expected " + n);
        }
        current.set(r);
      }
    } finally {
      current.set(null);
      try {
        barrier.await(HANG_SECONDS, TimeUnit.SECONDS);
      } catch (BrokenBarrierException | TimeoutException e) {
        // a worker failed or hung: its failure is reported below
      }
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(HANG_SECONDS));
      }
    }
    rethrow(failure.get());
    return played;
  }

  private static void await(CyclicBarrier barrier, AtomicReference<Throwable> failure)
      throws Exception {
    try {
      barrier.await(HANG_SECONDS, TimeUnit.SECONDS);
    } catch (BrokenBarrierException | TimeoutException e) {
      rethrow(failure.get());
      throw new AssertionError("a stress round hung for " + HANG_SECONDS + " s", e);
    }
  }

  private static void join(List<Thread> threads, AtomicReference<Throwable> failure)
      throws Exception {
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(HANG_SECONDS) + 1);
      if (t.isAlive()) {
        failure.compareAndSet(null, new AssertionError(t.getName() + " hung"));
      }
    }
    rethrow(failure.get());
  }

  private static void rethrow(Throwable t) throws Exception {
    if (t == null) {
      return;
    }
    if (t instanceof Exception e) {
      throw e;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new AssertionError(t);
  }
}
