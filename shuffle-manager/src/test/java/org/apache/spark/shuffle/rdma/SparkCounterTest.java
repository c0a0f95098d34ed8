/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.counters.CounterDescriptor;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The plugin's own counters: one per fallback cause, ids and names unique over the source. */
class SparkCounterTest {
  @Test
  void everyFallbackCauseHasItsOneCounterAndTheLogCountsItThere() {
    FallbackLog log = new FallbackLog();
    for (FallbackLog.Cause cause : FallbackLog.Cause.values()) {
      assertEquals(cause, FallbackLog.counter(cause).cause());
      log.record(cause, "test", "detail");
    }
    log.record(FallbackLog.Cause.PUBLISH_FAILED, "test", "again");
    assertEquals(2L, log.snapshot().get("fallbacks.publishFailed"));
    assertEquals(1L, log.snapshot().get("fallbacks.transportUnavailable"));
    assertEquals(FallbackLog.Cause.values().length, log.snapshot().size());
  }

  @Test
  void idsAndNamesAreUniqueOverEveryGroupTheSourceShows() {
    Set<Integer> ids = new HashSet<>();
    Set<String> names = new HashSet<>();
    for (Class<? extends CounterDescriptor> g : SparkCounter.SOURCE_GROUPS) {
      for (CounterDescriptor c : g.getEnumConstants()) {
        assertTrue(ids.add(c.id()), c + " reuses id " + c.id());
        assertTrue(names.add(c.exportName()), c + " reuses name " + c.exportName());
        assertFalse(c.label().isBlank() || c.label().contains("\n"), c.toString());
      }
    }
    for (SparkCounter c : SparkCounter.values()) {
      assertTrue(c.id() >= 400 && c.id() < 500, c.toString());
    }
  }
}
