/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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

  /** One side's run of one round: its round number and a metric. */
  private record Run(int round, double seconds) {}

  @Test
  void pairedRatiosAreOursOverStockWithinEachRoundInRoundOrder() {
    List<Run> stock = List.of(new Run(2, 10), new Run(1, 8), new Run(3, 0), new Run(4, 5));
    List<Run> ours = List.of(new Run(1, 6), new Run(2, 12), new Run(3, 4), new Run(5, 9));
    // round 3: stock 0, no ratio; round 4 has no ours, round 5 no stock
    double[] paired = Medians.pairedRatios(stock, ours, Run::round, Run::seconds);
    assertArrayEquals(new double[] {0.75, 1.2}, paired, 1e-12);
    assertEquals("0.98 (0.75-1.20)", Medians.formatSpread(paired));
    assertEquals("n/a", Medians.formatSpread(new double[0]));
    assertEquals(
        "1.10 (1.10-1.10)",
        Medians.formatSpread(
            Medians.pairedRatios(
                List.of(new Run(1, 10)), List.of(new Run(1, 11)), Run::round, Run::seconds)));
  }
}
