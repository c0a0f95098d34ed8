/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/** Medians of the runs of one side and the ratio ours/stock of two medians. */
final class Medians {
  private Medians() {}

  /** The median; the mean of the middle two for an even count; NaN for none. */
  static double median(double... values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    int m = v.length / 2;
    return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  static <T> double median(List<T> runs, ToDoubleFunction<T> metric) {
    return median(runs.stream().mapToDouble(metric).toArray());
  }

  /**
   * Per round, {@code ours / stock} of a metric, in round order: each side's runs paired by their
   * round; a round with one side only, or a ratio that is not defined ({@link #ratio}), is left
   * out.
   */
  static <T> double[] pairedRatios(
      List<T> stock, List<T> ours, ToIntFunction<T> round, ToDoubleFunction<T> metric) {
    Map<Integer, Double> stockByRound = new TreeMap<>();
    for (T s : stock) {
      stockByRound.put(round.applyAsInt(s), metric.applyAsDouble(s));
    }
    Map<Integer, Double> oursByRound = new TreeMap<>();
    for (T o : ours) {
      oursByRound.put(round.applyAsInt(o), metric.applyAsDouble(o));
    }
    return oursByRound.entrySet().stream()
        .filter(e -> stockByRound.containsKey(e.getKey()))
        .mapToDouble(e -> ratio(e.getValue(), stockByRound.get(e.getKey())))
        .filter(r -> !Double.isNaN(r) && !Double.isInfinite(r))
        .toArray();
  }

  /** Per-round ratios as {@code median (min-max)}, or {@code n/a} for none. */
  static String formatSpread(double[] ratios) {
    if (ratios.length == 0) {
      return "n/a";
    }
    double min = Arrays.stream(ratios).min().getAsDouble();
    double max = Arrays.stream(ratios).max().getAsDouble();
    return format(median(ratios)) + " (" + format(min) + "-" + format(max) + ")";
  }

  /** {@code ours / stock}; NaN when stock is zero or either is NaN. */
  static double ratio(double ours, double stock) {
    return stock == 0 || Double.isNaN(stock) || Double.isNaN(ours) ? Double.NaN : ours / stock;
  }

  /** A ratio with two decimals, or {@code n/a}. */
  static String format(double ratio) {
    return Double.isNaN(ratio) || Double.isInfinite(ratio)
        ? "n/a"
        : String.format(java.util.Locale.ROOT, "%.2f", ratio);
  }
}
