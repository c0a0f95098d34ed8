/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A link rate in tc's syntax ({@code 300mbit}, {@code 1gbit}, {@code 800kbit}) and the {@code tbf}
 * that enforces it: the bucket holds 4 ms at the rate (at least 64 KiB, so a segmentation-offloaded
 * packet of the veth fits), packets wait at most 50 ms in the queue.
 */
public record Rate(long bitsPerSecond) {
  private static final Pattern SYNTAX = Pattern.compile("(\\d+)(bit|kbit|mbit|gbit)");
  static final long MIN_BURST_BYTES = 64 * 1024;

  public Rate {
    if (bitsPerSecond < 8_000) {
      throw new IllegalArgumentException("rate=" + bitsPerSecond + "bit: must be at least 8kbit");
    }
  }

  public static Rate parse(String text) {
    Matcher m = SYNTAX.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "rate=" + text + ": must be a number and bit, kbit, mbit or gbit, e.g. 300mbit");
    }
    long n = Long.parseLong(m.group(1));
    long unit =
        switch (m.group(2)) {
          case "kbit" -> 1_000L;
          case "mbit" -> 1_000_000L;
          case "gbit" -> 1_000_000_000L;
          default -> 1L;
        };
    return new Rate(Math.multiplyExact(n, unit));
  }

  long burstBytes() {
    return Math.max(MIN_BURST_BYTES, bitsPerSecond / 8 / 250);
  }

  /** {@code prefix} followed by the tbf arguments. */
  String[] tbf(String... prefix) {
    List<String> c = new ArrayList<>(List.of(prefix));
    c.addAll(
        List.of(
            "tbf",
            "rate",
            bitsPerSecond + "bit",
            "burst",
            Long.toString(burstBytes()),
            "latency",
            "50ms"));
    return c.toArray(String[]::new);
  }

  @Override
  public String toString() {
    return bitsPerSecond % 1_000_000 == 0
        ? bitsPerSecond / 1_000_000 + "mbit"
        : bitsPerSecond + "bit";
  }
}
