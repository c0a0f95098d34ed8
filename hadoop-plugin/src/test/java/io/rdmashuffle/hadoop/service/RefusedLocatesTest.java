/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import org.junit.jupiter.api.Test;

/** Refusals of locates that proved nothing: counted every time, printed only safely. */
class RefusedLocatesTest {
  @Test
  void aRequestersTextIsPrintedOnlyAsJobIdCharactersAndCut() {
    assertEquals("job_1700000000000_0001", RefusedLocates.printable("job_1700000000000_0001"));
    String forged = "job_1\n2026-12-04 INFO fake line\r\u001b[31m";
    String p = RefusedLocates.printable(forged);
    assertFalse(p.contains("\n") || p.contains("\r") || p.contains("\u001b") || p.contains(" "), p);
    assertTrue(p.startsWith("job_1?2026-12-04?INFO?fake?line"), p);
    String longer = "j".repeat(10_000);
    assertEquals(RefusedLocates.MAX_ID_CHARS + 3, RefusedLocates.printable(longer).length(), "cut");
    assertEquals("(none)", RefusedLocates.printable(null));
  }

  @Test
  void everyRefusalIsCountedWhileFewAreLogged() {
    TransportMetrics metrics = new TransportMetrics();
    RefusedLocates r = new RefusedLocates(metrics);
    for (int i = 0; i < 1000; i++) {
      r.refused("job_" + i, "unknown job");
    }
    assertEquals(1000, metrics.refusals(Refusal.LOCATE_UNAUTHENTICATED));
  }
}
