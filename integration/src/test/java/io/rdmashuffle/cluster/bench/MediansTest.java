/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MediansTest {
  @Test
  void theMiddleValueOfAnOddCountTheMeanOfTheMiddleTwoOfAnEvenOne() {
    assertEquals(3.0, Medians.median(5, 1, 3));
    assertEquals(2.5, Medians.median(4, 1, 3, 2));
    assertEquals(7.0, Medians.median(7));
    assertTrue(Double.isNaN(Medians.median()));
  }

  @Test
  void aMedianOfAMetricOfRuns() {
    assertEquals(20.0, Medians.median(List.of("a", "bb", "ccc"), s -> s.length() * 10.0));
  }

  @Test
  void ratioIsOursOverStockAndUndefinedOverZero() {
    assertEquals(0.5, Medians.ratio(1, 2));
    assertTrue(Double.isNaN(Medians.ratio(1, 0)));
    assertTrue(Double.isNaN(Medians.ratio(Double.NaN, 1)));
    assertEquals("0.50", Medians.format(0.5));
    assertEquals("n/a", Medians.format(Medians.ratio(1, 0)));
  }
}
