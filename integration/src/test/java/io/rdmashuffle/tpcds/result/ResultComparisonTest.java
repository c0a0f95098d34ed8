/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResultComparisonTest {
  private static String row(Object... v) {
    return CanonicalRows.row(v);
  }

  @Test
  void doublesOnARoundingBoundaryAreEqualWithinTolerance() {
    // 12 significant digits: these round to ...000 and ...001, one unit in the last place apart
    String a = row("x", 1.00000000000499);
    String b = row("x", 1.00000000000501);
    assertFalse(a.equals(b));
    assertEquals(Optional.empty(), ResultComparison.firstDifference(List.of(a), List.of(b)));
  }

  @Test
  void aRealDifferenceInADoubleIsReported() {
    Optional<String> d =
        ResultComparison.firstDifference(List.of(row("x", 1.0)), List.of(row("x", 1.000001)));
    assertTrue(d.isPresent());
    assertTrue(d.get().contains("field 2"), d.get());
  }

  @Test
  void decimalsGetNoTolerance() {
    String a = row(new BigDecimal("12345678.90"));
    String b = row(new BigDecimal("12345678.91"));
    assertTrue(ResultComparison.firstDifference(List.of(a), List.of(b)).isPresent());
  }

  @Test
  void rowCountsMustMatch() {
    assertEquals(
        Optional.of("row count 2 vs 1"),
        ResultComparison.firstDifference(List.of("a", "a"), List.of("a")));
  }

  @Test
  void rowsArePairedDespiteNoiseInDoubles() {
    // sorted by their full text these pair (k, 2.00000000001, 1) with (k, 2.00000000001, 2)
    List<String> a = List.of(row("k", 2.0, 2), row("k", 2.00000000001, 1));
    List<String> b = List.of(row("k", 2.00000000001, 2), row("k", 2.0, 1));
    assertEquals(Optional.empty(), ResultComparison.firstDifference(a, b));
  }

  @Test
  void valuesNearZeroCompareAbsolutely() {
    assertTrue(ResultComparison.fieldEqual("~1E-15", "~-2E-16"));
    assertFalse(ResultComparison.fieldEqual("~1E-3", "~2E-3"));
    assertFalse(ResultComparison.fieldEqual("~1", "1"));
  }

  @Test
  void fieldsSplitOnUnescapedSeparatorsOnly() {
    assertEquals(List.of("a\\|b", "c", ""), ResultComparison.fields("a\\|b|c|"));
  }
}
