/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import io.rdmashuffle.tpcds.report.QueryOutcome.Verdict;
import java.util.Comparator;
import java.util.List;

/**
 * The headline of a comparison: how many queries returned equal results, and total and
 * geometric-mean time per side over the queries both sides ran successfully.
 *
 * @param queries queries compared
 * @param equal queries whose results were equal, {@link #sameError} included
 * @param sameError queries that failed with the same error on both sides
 * @param different queries whose results differed (these fail the run)
 * @param failed queries with a run that gave no result: application died, timeout (these fail the
 *     run too)
 * @param withinTolerance equal queries that needed the double tolerance
 * @param timed queries in the time figures below
 * @param stockTotal sum of stock's medians, seconds
 * @param oursTotal sum of ours's medians, seconds
 * @param stockGeomean geometric mean of stock's medians, seconds
 * @param oursGeomean geometric mean of ours's medians, seconds
 * @param wins up to five queries where ours saved the most time, most first
 * @param losses up to five queries where ours lost the most time, most first
 */
public record Summary(
    int queries,
    int equal,
    int sameError,
    int different,
    int failed,
    int withinTolerance,
    int timed,
    double stockTotal,
    double oursTotal,
    double stockGeomean,
    double oursGeomean,
    List<QueryOutcome> wins,
    List<QueryOutcome> losses) {

  static final int TOP = 5;

  public static Summary of(List<QueryOutcome> outcomes) {
    int equal = 0;
    int sameError = 0;
    int failed = 0;
    int tolerance = 0;
    for (QueryOutcome o : outcomes) {
      if (o.verdict().equalResults()) {
        equal++;
        if (o.withinTolerance()) {
          tolerance++;
        }
      }
      if (o.verdict() == Verdict.SAME_ERROR) {
        sameError++;
      }
      if (o.verdict() == Verdict.FAILED) {
        failed++;
      }
    }
    List<QueryOutcome> timed = outcomes.stream().filter(QueryOutcome::timed).toList();
    double st = 0;
    double ot = 0;
    double sl = 0;
    double ol = 0;
    for (QueryOutcome o : timed) {
      st += o.stockSeconds().median();
      ot += o.oursSeconds().median();
      sl += Math.log(Math.max(o.stockSeconds().median(), 1e-3));
      ol += Math.log(Math.max(o.oursSeconds().median(), 1e-3));
    }
    int n = timed.size();
    List<QueryOutcome> wins =
        timed.stream()
            .filter(o -> o.savedSeconds() > 0)
            .sorted(Comparator.comparingDouble(QueryOutcome::savedSeconds).reversed())
            .limit(TOP)
            .toList();
    List<QueryOutcome> losses =
        timed.stream()
            .filter(o -> o.savedSeconds() < 0)
            .sorted(Comparator.comparingDouble(QueryOutcome::savedSeconds))
            .limit(TOP)
            .toList();
    return new Summary(
        outcomes.size(),
        equal,
        sameError,
        outcomes.size() - equal - failed,
        failed,
        tolerance,
        n,
        st,
        ot,
        n == 0 ? Double.NaN : Math.exp(sl / n),
        n == 0 ? Double.NaN : Math.exp(ol / n),
        wins,
        losses);
  }

  /** ours / stock of the totals. */
  public double ratio() {
    return oursTotal / stockTotal;
  }

  /** ours / stock of the geometric means. */
  public double geomeanRatio() {
    return oursGeomean / stockGeomean;
  }
}
