/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.metrics;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
  @Test
  void percentilesAreTheUpperBoundOfTheirPowerOfTwoBucket() {
    LatencyHistogram h = new LatencyHistogram();
    assertEquals(0, h.percentileMicros(0.5));
    for (int i = 0; i < 90; i++) {
      h.recordNanos(3_000); // 3 µs: bucket [2, 4)
    }
    for (int i = 0; i < 10; i++) {
      h.recordNanos(1_000_000); // 1 ms: bucket [512, 1024) µs... 1000 µs
    }
    assertEquals(100, h.count());
    assertEquals(4, h.percentileMicros(0.5));
    assertEquals(4, h.percentileMicros(0.9));
    assertEquals(1024, h.percentileMicros(0.99));
    h.recordNanos(Long.MAX_VALUE);
    h.recordNanos(-5);
    assertEquals(102, h.count(), "extremes are clamped, never lost");
  }
}
