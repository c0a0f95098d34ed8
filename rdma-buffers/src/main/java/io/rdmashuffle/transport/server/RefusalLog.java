/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import java.util.EnumMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts every refusal of the connection server and logs it, at most once per {@value
 * #INTERVAL_SECONDS} seconds per kind (with how many were not logged since), so a flood can't flood
 * the log. Thread-safe.
 */
final class RefusalLog {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionServer.class);
  private static final int INTERVAL_SECONDS = 10;
  private static final long INTERVAL_NANOS = INTERVAL_SECONDS * 1_000_000_000L;

  private final TransportMetrics metrics;
  private final EnumMap<Refusal, long[]> state = new EnumMap<>(Refusal.class);

  RefusalLog(TransportMetrics metrics) {
    this.metrics = metrics;
    for (Refusal r : Refusal.values()) {
      state.put(r, new long[] {Long.MIN_VALUE, 0});
    }
  }

  /** Counts one refusal; logs it unless one of its kind was logged in the last interval. */
  void refused(Refusal why, Object who, String detail, Throwable cause) {
    metrics.refused(why);
    long now = System.nanoTime();
    long suppressed;
    long[] s = state.get(why);
    synchronized (s) {
      if (s[0] != Long.MIN_VALUE && now - s[0] < INTERVAL_NANOS) {
        s[1]++;
        return;
      }
      s[0] = now;
      suppressed = s[1];
      s[1] = 0;
    }
    String more = suppressed == 0 ? "" : " (" + suppressed + " more of this kind not logged)";
    if (cause == null) {
      LOG.warn("refused {} ({}): {}{}", who, why, detail, more);
    } else {
      LOG.warn("refused {} ({}): {}{}", who, why, detail, more, cause);
    }
  }
}
