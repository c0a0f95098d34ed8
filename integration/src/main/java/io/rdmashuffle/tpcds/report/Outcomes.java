/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import io.rdmashuffle.tpcds.report.QueryOutcome.ShuffleFigures;
import io.rdmashuffle.tpcds.report.QueryOutcome.Verdict;
import io.rdmashuffle.tpcds.result.ResultComparison;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * Turns the runs of a comparison into one {@link QueryOutcome} per query: the differential oracle.
 * A query's results are equal when every run on both sides (warm-up runs included) returned the
 * same digest, or rows that {@link ResultComparison} finds equal within tolerance, or when every
 * run failed with the same canonical error.
 */
public final class Outcomes {
  /** Canonical lines of a stored result, by query and digest; empty when none was stored. */
  @FunctionalInterface
  public interface RowsSource {
    Optional<List<String>> rows(String query, String digest);

    RowsSource NONE = (q, d) -> Optional.empty();
  }

  public static final String STOCK = "stock";
  public static final String OURS = "ours";

  private Outcomes() {}

  /** One outcome per query, in the order queries first appear in {@code runs}. */
  public static List<QueryOutcome> compute(List<QueryRun> runs, RowsSource rows) {
    Map<String, List<QueryRun>> byQuery = new LinkedHashMap<>();
    for (QueryRun r : runs) {
      byQuery.computeIfAbsent(r.query(), q -> new ArrayList<>()).add(r);
    }
    List<QueryOutcome> out = new ArrayList<>();
    for (Map.Entry<String, List<QueryRun>> e : byQuery.entrySet()) {
      out.add(outcome(e.getKey(), e.getValue(), rows));
    }
    return out;
  }

  static QueryOutcome outcome(String query, List<QueryRun> runs, RowsSource rows) {
    List<QueryRun> stock = side(runs, STOCK);
    List<QueryRun> ours = side(runs, OURS);
    Set<String> stockDigests = digests(stock);
    Set<String> oursDigests = digests(ours);
    Map<String, QueryRun> byDigest = new LinkedHashMap<>();
    for (QueryRun r : runs) {
      byDigest.putIfAbsent(r.digest(), r);
    }

    Verdict verdict;
    boolean tolerance = false;
    String note = "";
    String error = null;
    List<QueryRun> missing = runs.stream().filter(QueryRun::noResult).toList();
    if (stock.isEmpty() || ours.isEmpty()) {
      verdict = Verdict.FAILED;
      note = "no run on " + (stock.isEmpty() ? STOCK : OURS);
    } else if (!missing.isEmpty()) {
      verdict = Verdict.FAILED;
      note =
          missing.stream()
              .map(r -> r.app() + (r.warmup() ? " warm-up" : "") + ": " + r.error())
              .distinct()
              .reduce((x, y) -> x + "; " + y)
              .orElse("");
    } else {
      // every distinct result is compared with the first one stock returned
      String reference = stock.get(0).digest();
      QueryRun ref = byDigest.get(reference);
      List<String> problems = new ArrayList<>();
      for (Map.Entry<String, QueryRun> d : byDigest.entrySet()) {
        if (d.getKey().equals(reference)) {
          continue;
        }
        Optional<String> diff = difference(query, ref, d.getValue(), rows);
        if (diff.isPresent()) {
          problems.add(describe(d.getValue(), ref) + ": " + diff.get());
        } else {
          tolerance = true;
        }
      }
      if (problems.isEmpty()) {
        verdict = ref.ok() ? Verdict.EQUAL : Verdict.SAME_ERROR;
        error = ref.ok() ? null : ref.error();
      } else {
        verdict = Verdict.DIFFERENT;
        note = String.join("; ", problems);
      }
      if (stockDigests.size() > 1 && verdict == Verdict.DIFFERENT) {
        note += " (stock's own runs disagree: is the query deterministic?)";
      }
      long orders =
          runs.stream().filter(QueryRun::ok).map(QueryRun::orderedDigest).distinct().count();
      if (verdict == Verdict.EQUAL && orders > 1) {
        note = "same rows, not always in the same order (ties in ORDER BY, or no ORDER BY)";
      }
    }
    return new QueryOutcome(
        query,
        verdict,
        tolerance,
        note,
        seconds(stock),
        seconds(ours),
        figures(stock),
        figures(ours),
        List.copyOf(stockDigests),
        List.copyOf(oursDigests),
        error);
  }

  private static Optional<String> difference(
      String query, QueryRun ref, QueryRun other, RowsSource rows) {
    if (!ref.ok() || !other.ok()) {
      return Optional.of(
          ref.ok()
              ? "error " + other.error() + " (" + other.errorMessage() + ")"
              : other.ok()
                  ? "rows, where " + ref.side() + " failed with " + ref.error()
                  : "error " + other.error() + " vs " + ref.error());
    }
    Optional<List<String>> a = rows.rows(query, ref.digest());
    Optional<List<String>> b = rows.rows(query, other.digest());
    if (a.isEmpty() || b.isEmpty()) {
      return Optional.of(
          other.rows()
              + " rows vs "
              + ref.rows()
              + ", digests differ (rows not stored, cannot compare within tolerance)");
    }
    return ResultComparison.firstDifference(a.get(), b.get());
  }

  private static String describe(QueryRun run, QueryRun ref) {
    return run.app() + (run.warmup() ? " warm-up" : "") + " vs " + ref.app();
  }

  private static List<QueryRun> side(List<QueryRun> runs, String side) {
    return runs.stream().filter(r -> side.equals(r.side())).toList();
  }

  private static Set<String> digests(List<QueryRun> runs) {
    Set<String> out = new LinkedHashSet<>();
    runs.forEach(r -> out.add(r.digest()));
    return out;
  }

  private static List<QueryRun> timed(List<QueryRun> runs) {
    return runs.stream().filter(r -> !r.warmup() && r.ok()).toList();
  }

  private static Stats seconds(List<QueryRun> runs) {
    return Stats.of(timed(runs).stream().mapToDouble(r -> r.millis() / 1000.0).toArray());
  }

  private static ShuffleFigures figures(List<QueryRun> runs) {
    List<QueryRun> t = timed(runs);
    if (t.isEmpty()) {
      return ShuffleFigures.NONE;
    }
    return new ShuffleFigures(
        median(t, QueryRun::shuffleWriteBytes),
        median(t, QueryRun::shuffleReadBytes),
        median(t, QueryRun::shuffleRemoteBytes),
        median(t, QueryRun::fetchWaitMillis));
  }

  private static long median(List<QueryRun> runs, ToLongFunction<QueryRun> f) {
    long[] v = runs.stream().mapToLong(f).toArray();
    Arrays.sort(v);
    return v[v.length / 2];
  }
}
