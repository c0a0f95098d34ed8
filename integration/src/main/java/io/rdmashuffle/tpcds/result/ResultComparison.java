/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.result;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Compares two canonical results (see {@link CanonicalRows}) when their digests differ: equal
 * within tolerance when they have the same rows and differ only in approximate ({@code ~}) fields,
 * each pair within {@value #RELATIVE_TOLERANCE} of the larger magnitude (or both below {@value
 * #ABSOLUTE_TOLERANCE}). Every other field must match exactly.
 *
 * <p>Rows are paired after sorting both sides by a coarse key (approximate fields rounded to
 * {@value #PAIRING_DIGITS} digits) so that last-bit noise in a double does not reorder them.
 */
public final class ResultComparison {
  /** Largest relative difference between two doubles that still counts as equal. */
  public static final double RELATIVE_TOLERANCE = 1e-9;

  /** Two doubles both smaller than this in magnitude are equal. */
  public static final double ABSOLUTE_TOLERANCE = 1e-9;

  static final int PAIRING_DIGITS = 6;

  private static final MathContext PAIRING =
      new MathContext(PAIRING_DIGITS, RoundingMode.HALF_EVEN);

  private ResultComparison() {}

  /**
   * The first difference between two results, or empty when they are equal within tolerance.
   *
   * @param a canonical lines of one result, any order
   * @param b canonical lines of the other, any order
   */
  public static Optional<String> firstDifference(List<String> a, List<String> b) {
    if (a.size() != b.size()) {
      return Optional.of("row count " + a.size() + " vs " + b.size());
    }
    List<String> sa = pairingOrder(a);
    List<String> sb = pairingOrder(b);
    for (int i = 0; i < sa.size(); i++) {
      String x = sa.get(i);
      String y = sb.get(i);
      if (x.equals(y)) {
        continue;
      }
      List<String> fx = fields(x);
      List<String> fy = fields(y);
      if (fx.size() != fy.size()) {
        return Optional.of("row " + i + ": " + fx.size() + " vs " + fy.size() + " fields");
      }
      for (int j = 0; j < fx.size(); j++) {
        if (!fieldEqual(fx.get(j), fy.get(j))) {
          return Optional.of(
              "row "
                  + i
                  + " field "
                  + (j + 1)
                  + ": "
                  + fx.get(j)
                  + " vs "
                  + fy.get(j)
                  + " (rows: "
                  + x
                  + " vs "
                  + y
                  + ")");
        }
      }
    }
    return Optional.empty();
  }

  static boolean fieldEqual(String x, String y) {
    if (x.equals(y)) {
      return true;
    }
    if (!x.startsWith(CanonicalRows.APPROXIMATE) || !y.startsWith(CanonicalRows.APPROXIMATE)) {
      return false;
    }
    double dx;
    double dy;
    try {
      dx = Double.parseDouble(x.substring(1));
      dy = Double.parseDouble(y.substring(1));
    } catch (NumberFormatException e) {
      return false;
    }
    if (Math.abs(dx) < ABSOLUTE_TOLERANCE && Math.abs(dy) < ABSOLUTE_TOLERANCE) {
      return true;
    }
    return Math.abs(dx - dy) <= RELATIVE_TOLERANCE * Math.max(Math.abs(dx), Math.abs(dy));
  }

  private static List<String> pairingOrder(List<String> lines) {
    List<String[]> keyed = new ArrayList<>(lines.size());
    for (String line : lines) {
      keyed.add(new String[] {coarse(line), line});
    }
    keyed.sort(Comparator.<String[], String>comparing(k -> k[0]).thenComparing(k -> k[1]));
    List<String> out = new ArrayList<>(lines.size());
    for (String[] k : keyed) {
      out.add(k[1]);
    }
    return out;
  }

  private static String coarse(String line) {
    if (!line.contains(CanonicalRows.APPROXIMATE)) {
      return line;
    }
    StringBuilder b = new StringBuilder();
    for (String f : fields(line)) {
      if (b.length() > 0) {
        b.append('|');
      }
      if (f.startsWith(CanonicalRows.APPROXIMATE)) {
        try {
          BigDecimal d = new BigDecimal(f.substring(1));
          b.append(CanonicalRows.APPROXIMATE).append(d.round(PAIRING).stripTrailingZeros());
          continue;
        } catch (NumberFormatException e) {
          // NaN or Infinity: keep as it is
        }
      }
      b.append(f);
    }
    return b.toString();
  }

  /** Splits a canonical line into its fields (still escaped), at unescaped {@code |}. */
  static List<String> fields(String line) {
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '|') {
        out.add(line.substring(start, i));
        start = i + 1;
      }
    }
    out.add(line.substring(start));
    return out;
  }
}
