/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.metrics;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * READ latencies in power-of-two microsecond buckets (bucket i counts latencies in [2^(i-1), 2^i)
 * µs; bucket 0 is below 1 µs), lock-free and allocation-free to record. Percentiles are reported as
 * the upper bound of their bucket, so within a factor of two.
 */
public final class LatencyHistogram {
  public static final int BUCKETS = 40;
  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

  public void recordNanos(long nanos) {
    long micros = Math.max(0, nanos) / 1000;
    int bucket = micros == 0 ? 0 : 64 - Long.numberOfLeadingZeros(micros);
    counts.incrementAndGet(Math.min(bucket, BUCKETS - 1));
  }

  public long count() {
    long n = 0;
    for (int i = 0; i < BUCKETS; i++) {
      n += counts.get(i);
    }
    return n;
  }

  /** Count of bucket {@code i}. */
  public long bucket(int i) {
    return counts.get(i);
  }

  /** Upper bound in µs of bucket {@code i}. */
  public static long bucketUpperMicros(int i) {
    return 1L << i;
  }

  /** The upper bound (µs) of the bucket holding the {@code q} quantile; 0 when empty. */
  public long percentileMicros(double q) {
    long total = count();
    if (total == 0) {
      return 0;
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts.get(i);
      if (seen >= Math.max(1, rank)) {
        return bucketUpperMicros(i);
      }
    }
    return bucketUpperMicros(BUCKETS - 1);
  }
}
