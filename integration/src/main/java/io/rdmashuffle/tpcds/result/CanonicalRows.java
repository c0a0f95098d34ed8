/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.result;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;

/**
 * The canonical text of a query result, and its digests: what the TPC-DS comparison compares
 * between the stock shuffle and ours.
 *
 * <p>One row is one line, its fields joined by {@code |}: {@code null} is {@code \N}; strings are
 * escaped ({@code \\}, {@code \|}, {@code \n}); integers, dates and timestamps are their ISO text;
 * decimals are exact ({@link BigDecimal#toPlainString()}, scale kept). Doubles and floats are the
 * one lossy form, written {@value #APPROXIMATE} followed by the value rounded to {@value
 * #DOUBLE_DIGITS} significant digits: a sum or a standard deviation of doubles depends on the order
 * in which partial results meet, which is the shuffle's to choose, so two correct runs may differ
 * in the last bits. The marker lets {@link ResultComparison} compare those fields (and only those)
 * within a tolerance when two digests differ.
 *
 * <p>The {@link #digest(List) digest} is over the rows sorted: equal for the same multiset of rows
 * in any order (most TPC-DS queries end in ORDER BY ... LIMIT, but with ties in the sort key the
 * order among tied rows is the engine's choice). The {@link #orderedDigest(List) ordered digest}
 * keeps the returned order; it is reported, never used as the verdict.
 */
public final class CanonicalRows {
  /** Marks a field that was a double or a float before it was rounded. */
  public static final String APPROXIMATE = "~";

  /** Significant digits a double keeps in the canonical text. */
  public static final int DOUBLE_DIGITS = 12;

  private static final MathContext DOUBLE_CONTEXT =
      new MathContext(DOUBLE_DIGITS, RoundingMode.HALF_EVEN);

  private CanonicalRows() {}

  /** The canonical line of one row. */
  public static String row(Object[] fields) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < fields.length; i++) {
      if (i > 0) {
        b.append('|');
      }
      value(b, fields[i]);
    }
    return b.toString();
  }

  /** Appends the canonical text of one value. */
  public static void value(StringBuilder b, Object v) {
    if (v == null) {
      b.append("\\N");
    } else if (v instanceof String s) {
      escape(b, s);
    } else if (v instanceof BigDecimal d) {
      b.append(d.toPlainString());
    } else if (v instanceof Double d) {
      approximate(b, d);
    } else if (v instanceof Float f) {
      approximate(b, f.doubleValue());
    } else if (v instanceof Number || v instanceof Boolean || v instanceof TemporalAccessor) {
      b.append(v);
    } else if (v instanceof Date) {
      b.append(v); // java.sql.Date and Timestamp print ISO forms
    } else if (v instanceof byte[] bytes) {
      b.append("0x").append(HexFormat.of().formatHex(bytes));
    } else if (v instanceof Object[] nested) {
      b.append('(').append(row(nested).replace("\n", "\\n")).append(')');
    } else if (v instanceof Collection<?> c) {
      b.append('[');
      boolean first = true;
      for (Object o : c) {
        if (!first) {
          b.append(',');
        }
        first = false;
        value(b, o);
      }
      b.append(']');
    } else {
      escape(b, v.toString());
    }
  }

  /** The canonical text of a double: {@code ~} and 12 significant digits. */
  public static String approximate(double d) {
    StringBuilder b = new StringBuilder();
    approximate(b, d);
    return b.toString();
  }

  private static void approximate(StringBuilder b, double d) {
    b.append(APPROXIMATE);
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      b.append(d);
    } else if (d == 0) {
      b.append('0'); // -0.0 and 0.0 are one value
    } else {
      b.append(new BigDecimal(d).round(DOUBLE_CONTEXT).stripTrailingZeros().toString());
    }
  }

  private static void escape(StringBuilder b, String s) {
    if (s.startsWith(APPROXIMATE)) {
      b.append('\\'); // a string is never taken for a rounded double
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '|' -> b.append("\\|");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        default -> b.append(c);
      }
    }
  }

  /** The canonical lines sorted: the order-independent form of a result. */
  public static List<String> sorted(List<String> lines) {
    List<String> copy = new ArrayList<>(lines);
    copy.sort(null);
    return copy;
  }

  /** Digest of the rows in any order: SHA-256 of the sorted lines, 32 hex digits. */
  public static String digest(List<String> lines) {
    return orderedDigest(sorted(lines));
  }

  /** Digest of the rows in the order given. */
  public static String orderedDigest(List<String> lines) {
    MessageDigest md = sha256();
    for (String line : lines) {
      md.update(line.getBytes(StandardCharsets.UTF_8));
      md.update((byte) '\n');
    }
    return HexFormat.of().formatHex(md.digest(), 0, 16);
  }

  /** Digest of a failed run: equal when both sides failed the same way. */
  public static String errorDigest(String canonicalError) {
    return orderedDigest(List.of("ERROR " + canonicalError));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
