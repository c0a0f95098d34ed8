/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import static io.rdmashuffle.tpcds.report.Runs.error;
import static io.rdmashuffle.tpcds.report.Runs.ok;
import static io.rdmashuffle.tpcds.report.Runs.warmup;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.tpcds.report.QueryOutcome.Verdict;
import io.rdmashuffle.tpcds.result.CanonicalRows;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OutcomesTest {
  private static final List<String> ROWS = List.of("a|1", "b|2");

  private static QueryOutcome only(List<QueryRun> runs, Outcomes.RowsSource rows) {
    List<QueryOutcome> out = Outcomes.compute(runs, rows);
    assertEquals(1, out.size());
    return out.get(0);
  }

  @Test
  void sameRowsInAnyOrderAreEqualAndTimedByMedian() {
    QueryOutcome o =
        only(
            List.of(
                ok("stock", 1, "q1", 1000, ROWS),
                ok("ours", 1, "q1", 800, List.of("b|2", "a|1")),
                ok("ours", 2, "q1", 900, ROWS),
                ok("stock", 2, "q1", 1200, ROWS),
                ok("stock", 3, "q1", 3000, ROWS),
                ok("ours", 3, "q1", 850, ROWS)),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.EQUAL, o.verdict());
    assertFalse(o.withinTolerance());
    assertTrue(o.note().startsWith("same rows, not always in the same order"), o.note());
    assertEquals(1.2, o.stockSeconds().median(), 1e-9);
    assertEquals(0.85, o.oursSeconds().median(), 1e-9);
    assertEquals(3, o.stockSeconds().n());
    assertEquals(0.85 / 1.2, o.ratio(), 1e-9);
  }

  @Test
  void warmUpRunsAreComparedButNotTimed() {
    QueryOutcome o =
        only(
            List.of(
                warmup(ok("stock", 1, "q1", 9000, ROWS)),
                ok("stock", 1, "q1", 1000, ROWS),
                warmup(ok("ours", 1, "q1", 9000, List.of("a|1"))),
                ok("ours", 1, "q1", 1000, ROWS)),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.DIFFERENT, o.verdict());
    assertTrue(o.note().contains("ours-r1-b1 warm-up"), o.note());
    assertEquals(1, o.stockSeconds().n());
  }

  @Test
  void differentRowsAreDifferentAndNotTimed() {
    QueryOutcome o =
        only(
            List.of(ok("stock", 1, "q1", 1000, ROWS), ok("ours", 1, "q1", 1000, List.of("a|1"))),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.DIFFERENT, o.verdict());
    assertFalse(o.timed());
    assertTrue(Double.isNaN(o.ratio()));
    assertTrue(o.note().contains("rows not stored"), o.note());
  }

  @Test
  void doublesDifferingInLastDigitsAreEqualWithinToleranceWhenRowsWereStored() {
    List<String> a = List.of(CanonicalRows.row(new Object[] {"x", 1.00000000000499}));
    List<String> b = List.of(CanonicalRows.row(new Object[] {"x", 1.00000000000501}));
    Map<String, List<String>> stored =
        Map.of(CanonicalRows.digest(a), a, CanonicalRows.digest(b), b);
    Outcomes.RowsSource rows = (q, d) -> Optional.ofNullable(stored.get(d));
    QueryOutcome o =
        only(List.of(ok("stock", 1, "q39a", 1000, a), ok("ours", 1, "q39a", 900, b)), rows);
    assertEquals(Verdict.EQUAL, o.verdict());
    assertTrue(o.withinTolerance());
    assertTrue(o.timed());
  }

  @Test
  void storedRowsThatReallyDifferAreNamed() {
    List<String> a = List.of("x|1");
    List<String> b = List.of("x|2");
    Map<String, List<String>> stored =
        Map.of(CanonicalRows.digest(a), a, CanonicalRows.digest(b), b);
    QueryOutcome o =
        only(
            List.of(ok("stock", 1, "q5", 1000, a), ok("ours", 1, "q5", 900, b)),
            (q, d) -> Optional.ofNullable(stored.get(d)));
    assertEquals(Verdict.DIFFERENT, o.verdict());
    assertTrue(o.note().contains("x|1 vs x|2") || o.note().contains("x|2 vs x|1"), o.note());
  }

  @Test
  void theSameErrorOnBothSidesIsAnEqualResult() {
    QueryOutcome o =
        only(
            List.of(
                error("stock", 1, "q90", "DIVIDE_BY_ZERO"),
                error("ours", 1, "q90", "DIVIDE_BY_ZERO")),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.SAME_ERROR, o.verdict());
    assertEquals("DIVIDE_BY_ZERO", o.error());
    assertTrue(o.verdict().equalResults());
    assertFalse(o.timed());
  }

  @Test
  void anErrorOnOneSideOnlyIsADifference() {
    QueryOutcome o =
        only(
            List.of(ok("stock", 1, "q2", 1000, ROWS), error("ours", 1, "q2", "FETCH_FAILED")),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.DIFFERENT, o.verdict());
    assertTrue(o.note().contains("FETCH_FAILED"), o.note());
    QueryOutcome p =
        only(
            List.of(error("stock", 1, "q2", "A"), error("ours", 1, "q2", "B")),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.DIFFERENT, p.verdict());
  }

  @Test
  void aQueryOnlyOneSideRanFails() {
    QueryOutcome o = only(List.of(ok("stock", 1, "q3", 1000, ROWS)), Outcomes.RowsSource.NONE);
    assertEquals(Verdict.FAILED, o.verdict());
    assertEquals("no run on ours", o.note());
  }

  @Test
  void applicationsDyingOnBothSidesIsNeverAnEqualResult() {
    QueryOutcome o =
        only(
            List.of(
                error("stock", 1, "q3", QueryRun.NOT_RUN),
                error("ours", 1, "q3", QueryRun.NOT_RUN)),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.FAILED, o.verdict());
    assertFalse(o.verdict().equalResults());
    QueryOutcome t =
        only(
            List.of(error("stock", 1, "q4", "TIMEOUT after 600 s"), ok("ours", 1, "q4", 1, ROWS)),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.FAILED, t.verdict());
    assertTrue(t.note().contains("stock-r1-b1: TIMEOUT"), t.note());
  }

  @Test
  void stockDisagreeingWithItselfIsPointedOut() {
    QueryOutcome o =
        only(
            List.of(
                ok("stock", 1, "q4", 1000, ROWS),
                ok("stock", 2, "q4", 1000, List.of("c|3")),
                ok("ours", 1, "q4", 1000, ROWS)),
            Outcomes.RowsSource.NONE);
    assertEquals(Verdict.DIFFERENT, o.verdict());
    assertTrue(o.note().contains("stock's own runs disagree"), o.note());
    assertEquals(2, o.stockResults().size());
  }

  @Test
  void outcomesKeepTheOrderQueriesFirstRan() {
    List<QueryOutcome> out =
        Outcomes.compute(
            List.of(
                ok("stock", 1, "q2", 1, ROWS),
                ok("stock", 1, "q10", 1, ROWS),
                ok("ours", 1, "q10", 1, ROWS),
                ok("ours", 1, "q2", 1, ROWS)),
            Outcomes.RowsSource.NONE);
    assertEquals(List.of("q2", "q10"), out.stream().map(QueryOutcome::query).toList());
  }
}
