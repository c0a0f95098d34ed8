/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;

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
