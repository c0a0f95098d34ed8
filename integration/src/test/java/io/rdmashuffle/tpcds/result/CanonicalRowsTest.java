/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.math.BigDecimal;
import java.sql.Date;
import java.util.List;
import org.junit.jupiter.api.Test;

class CanonicalRowsTest {
  @Test
  void valuesHaveOneTextEach() {
    assertEquals(
        "\\N|abc|42|7|true|2000-01-02|1.50",
        CanonicalRows.row(
            new Object[] {
              null, "abc", 42, 7L, true, Date.valueOf("2000-01-02"), new BigDecimal("1.50")
            }));
  }

  @Test
  void separatorsAndEscapesInStringsCannotForgeFields() {
    assertNotEquals(
        CanonicalRows.row(new Object[] {"a|b"}), CanonicalRows.row(new Object[] {"a", "b"}));
    assertEquals("a\\|b|c\\\\d|e\\nf", CanonicalRows.row(new Object[] {"a|b", "c\\d", "e\nf"}));
  }

  @Test
  void stringsThatLookLikeRoundedDoublesAreEscaped() {
    assertEquals("\\~1.5|~1.5", CanonicalRows.row(new Object[] {"~1.5", 1.5d}));
  }

  @Test
  void decimalsAreExactWithTheirScale() {
    assertNotEquals(
        CanonicalRows.row(new Object[] {new BigDecimal("1.5")}),
        CanonicalRows.row(new Object[] {new BigDecimal("1.50")}));
    assertEquals(
        "12345678901234567.89",
        CanonicalRows.row(new Object[] {new BigDecimal("12345678901234567.89")}));
  }

  @Test
  void doublesDifferingInTheLastBitsHaveOneText() {
    double a = 0.1 + 0.2;
    double b = 0.3;
    assertNotEquals(a, b);
    assertEquals(CanonicalRows.approximate(a), CanonicalRows.approximate(b));
    assertEquals("~0.3", CanonicalRows.approximate(b));
    assertEquals("~0", CanonicalRows.approximate(-0.0));
    assertEquals("~1.23456789012E+20", CanonicalRows.approximate(123456789012345678901.0));
    assertEquals("~NaN", CanonicalRows.approximate(Double.NaN));
    assertEquals("~2.5", CanonicalRows.row(new Object[] {2.5f}));
  }

  @Test
  void doublesDifferingInTheTwelfthDigitDiffer() {
    assertNotEquals(
        CanonicalRows.approximate(1.00000000001), CanonicalRows.approximate(1.00000000002));
  }

  @Test
  void digestIgnoresRowOrderOrderedDigestDoesNot() {
    List<String> a = List.of("1|x", "2|y", "3|z");
    List<String> b = List.of("3|z", "1|x", "2|y");
    assertEquals(CanonicalRows.digest(a), CanonicalRows.digest(b));
    assertNotEquals(CanonicalRows.orderedDigest(a), CanonicalRows.orderedDigest(b));
    assertEquals(32, CanonicalRows.digest(a).length());
  }

  @Test
  void digestCountsDuplicates() {
    assertNotEquals(CanonicalRows.digest(List.of("1", "1")), CanonicalRows.digest(List.of("1")));
    assertNotEquals(CanonicalRows.digest(List.of()), CanonicalRows.digest(List.of("")));
  }

  @Test
  void errorsDigestByTheirCanonicalForm() {
    assertEquals(
        CanonicalRows.errorDigest("DIVIDE_BY_ZERO"), CanonicalRows.errorDigest("DIVIDE_BY_ZERO"));
    assertNotEquals(
        CanonicalRows.errorDigest("DIVIDE_BY_ZERO"), CanonicalRows.errorDigest("OTHER"));
  }
}
