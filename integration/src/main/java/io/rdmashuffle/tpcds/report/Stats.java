/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;

/**
 * Median, minimum and maximum of a few measurements (the timed rounds of one query on one side).
 *
 * @param n how many
 * @param median the median (mean of the middle two for an even count)
 * @param min the smallest
 * @param max the largest
 */
public record Stats(int n, double median, double min, double max) {
  public static final Stats NONE = new Stats(0, Double.NaN, Double.NaN, Double.NaN);

  public static Stats of(double[] values) {
    if (values.length == 0) {
      return NONE;
    }
    double[] v = values.clone();
    Arrays.sort(v);
    int m = v.length / 2;
    double median = v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    return new Stats(v.length, median, v[0], v[v.length - 1]);
  }

  public boolean present() {
    return n > 0;
  }

  /** (max - min) / median: how far apart the rounds were, relative to the median. */
  @JsonProperty("spread")
  public double spread() {
    return n > 1 && median > 0 ? (max - min) / median : 0;
  }
}
