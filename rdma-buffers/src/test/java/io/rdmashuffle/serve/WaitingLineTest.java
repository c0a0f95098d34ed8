/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WaitingLineTest {
  private static final long SECOND = 1_000_000_000L;
  private final Object lock = new Object();
  private final ServingMetrics metrics = new ServingMetrics();

  /** Room for {@code free} more; guarded by the lock. */
  private int free;

  private boolean reserve(WaitingLine line, long reader, long waitNanos) {
    synchronized (lock) {
      return line.reserve(
          reader,
          true,
          System.nanoTime() + waitNanos,
          (evict, now) -> {
            if (free == 0) {
              return false;
            }
            free--;
            return true;
          });
    }
  }

  /** Waits until {@code n} locates wait in {@code line} (no sleeping on a guess). */
  private void awaitWaiting(WaitingLine line, int n) throws InterruptedException {
    long deadline = System.nanoTime() + 20 * SECOND;
    while (true) {
      synchronized (lock) {
        if (line.waiting() == n) {
          return;
        }
      }
      assertTrue(System.nanoTime() - deadline < 0, n + " waiters in the line in time");
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  /** Waits until {@code n} readers were served. */
  private static void awaitServed(List<Long> served, int n) throws InterruptedException {
    long deadline = System.nanoTime() + 20 * SECOND;
    while (true) {
      synchronized (served) {
        if (served.size() >= n) {
          return;
        }
      }
      assertTrue(System.nanoTime() - deadline < 0, n + " readers served in time");
      TimeUnit.MILLISECONDS.sleep(5);
    }
  }

  private void makeRoom() {
    synchronized (lock) {
      free++;
      lock.notifyAll();
    }
  }

  @Test
  void waitersAreServedByTheAgeOfTheirFirstBusyAnswerNotByArrival() throws Exception {
    WaitingLine line = new WaitingLine(lock, 8, metrics);
    // readers 1..3 are turned away in this order (each waits 50 ms for nothing)
    for (long r = 1; r <= 3; r++) {
      assertFalse(reserve(line, r, SECOND / 20));
    }
    assertEquals(3, line.remembered());
    // now they and a newcomer ask again, youngest first
    List<Long> served = new ArrayList<>();
    List<CompletableFuture<Boolean>> asks = new ArrayList<>();
    long[] readers = {9, 3, 2, 1};
    for (int i = 0; i < readers.length; i++) {
      long r = readers[i];
      asks.add(
          CompletableFuture.supplyAsync(
              () -> {
                boolean ok = reserve(line, r, 30 * SECOND);
                synchronized (served) {
                  served.add(r);
                }
                return ok;
              }));
      awaitWaiting(line, i + 1);
    }
    // one room at a time, each taken before the next is made: the order is the line's alone
    for (int i = 0; i < 4; i++) {
      makeRoom();
      awaitServed(served, i + 1);
    }
    for (CompletableFuture<Boolean> a : asks) {
      assertTrue(a.get(20, TimeUnit.SECONDS));
    }
    assertEquals(List.of(1L, 2L, 3L, 9L), served, "oldest busy answer first, the newcomer last");
    assertEquals(0, line.remembered(), "a reader served is forgotten");
  }

  @Test
  void aFullLineGivesTheYoungestWaitersPlaceToAnOlderReaderAndCountsIt() throws Exception {
    WaitingLine line = new WaitingLine(lock, 1, metrics);
    assertFalse(reserve(line, 1, SECOND / 20), "reader 1 is turned away first: the oldest");
    CompletableFuture<Boolean> newcomer =
        CompletableFuture.supplyAsync(() -> reserve(line, 2, 30 * SECOND));
    awaitWaiting(line, 1); // the newcomer holds the only place in the line
    CompletableFuture<Boolean> older =
        CompletableFuture.supplyAsync(() -> reserve(line, 1, 30 * SECOND));
    assertFalse(newcomer.get(20, TimeUnit.SECONDS), "the youngest waiter is answered busy at once");
    assertEquals(1, metrics.value(ServingCounter.DISPLACED));
    makeRoom();
    assertTrue(older.get(20, TimeUnit.SECONDS));
    assertEquals(1, metrics.value(ServingCounter.DISPLACED));
  }

  @Test
  void theMemoryOfTurnedAwayReadersIsBounded() {
    WaitingLine line = new WaitingLine(lock, 0, metrics);
    for (long r = 1; r <= WaitingLine.MAX_REMEMBERED + 5_000; r++) {
      assertFalse(reserve(line, r, SECOND));
    }
    assertEquals(WaitingLine.MAX_REMEMBERED, line.remembered());
    assertFalse(reserve(line, 0, SECOND));
    assertEquals(WaitingLine.MAX_REMEMBERED, line.remembered(), "reader 0 is never remembered");
  }
}
