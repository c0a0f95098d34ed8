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
    for (long r : new long[] {9, 3, 2, 1}) {
      asks.add(
          CompletableFuture.supplyAsync(
              () -> {
                boolean ok = reserve(line, r, 10 * SECOND);
                synchronized (served) {
                  served.add(r);
                }
                return ok;
              }));
      TimeUnit.MILLISECONDS.sleep(100);
    }
    for (int i = 0; i < 4; i++) {
      makeRoom();
      TimeUnit.MILLISECONDS.sleep(150);
    }
    for (CompletableFuture<Boolean> a : asks) {
      assertTrue(a.get(5, TimeUnit.SECONDS));
    }
    assertEquals(List.of(1L, 2L, 3L, 9L), served, "oldest busy answer first, the newcomer last");
    assertEquals(0, line.remembered(), "a reader served is forgotten");
  }

  @Test
  void aFullLineGivesTheYoungestWaitersPlaceToAnOlderReaderAndCountsIt() throws Exception {
    WaitingLine line = new WaitingLine(lock, 1, metrics);
    assertFalse(reserve(line, 1, SECOND / 20), "reader 1 is turned away first: the oldest");
    CompletableFuture<Boolean> newcomer =
        CompletableFuture.supplyAsync(() -> reserve(line, 2, 10 * SECOND));
    TimeUnit.MILLISECONDS.sleep(100); // the newcomer holds the only place in the line
    CompletableFuture<Boolean> older =
        CompletableFuture.supplyAsync(() -> reserve(line, 1, 10 * SECOND));
    assertFalse(newcomer.get(5, TimeUnit.SECONDS), "the youngest waiter is answered busy at once");
    assertEquals(1, metrics.value(ServingCounter.DISPLACED));
    makeRoom();
    assertTrue(older.get(5, TimeUnit.SECONDS));
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
