/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.shuffle.rdma.RdmaShuffleSource.RecentSnapshot;
import org.junit.jupiter.api.Test;

/** The gauges of the metrics source share one snapshot per report, not one each. */
class RecentSnapshotTest {
  @Test
  void gaugesReadWithinTheBoundShareOneSnapshot() {
    AtomicLong taken = new AtomicLong();
    RecentSnapshot s =
        new RecentSnapshot(() -> Map.of("n", taken.incrementAndGet()), Long.MAX_VALUE / 2);
    for (int i = 0; i < 100; i++) {
      assertEquals(1L, s.get().get("n"));
    }
    assertEquals(1, taken.get(), "snapshots taken for 100 gauges read at once");
  }

  @Test
  void anOlderSnapshotIsTakenAgain() {
    AtomicLong taken = new AtomicLong();
    RecentSnapshot s = new RecentSnapshot(() -> Map.of("n", taken.incrementAndGet()), -1);
    assertEquals(1L, s.get().get("n"));
    assertEquals(2L, s.get().get("n"));
    assertEquals(2, taken.get());
  }
}
