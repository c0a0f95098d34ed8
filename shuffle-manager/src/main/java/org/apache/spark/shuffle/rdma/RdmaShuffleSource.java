/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import io.rdmashuffle.metrics.LatencyHistogram;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.spark.metrics.source.Source;

/**
 * rdma-shuffle's Spark metrics source ({@code rdmaShuffle} in the driver's and every executor's
 * metrics system, so every configured sink sees it): bytes and READs, the READ latency histogram,
 * failures by type, fallbacks by cause, registered bytes and regions, map outputs served, blocks
 * read locally and remotely: every counter declared in {@link SparkCounter}, {@link
 * io.rdmashuffle.metrics.TransportCounter}, {@link io.rdmashuffle.serve.ServingCounter} and {@link
 * io.rdmashuffle.fetch.ReadCounter}.
 */
final class RdmaShuffleSource implements Source {
  /**
   * How long one snapshot of every counter answers the gauges: a sink reads them one by one, and a
   * snapshot per gauge cost a hundred snapshots per report.
   */
  static final long SNAPSHOT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final MetricRegistry registry = new MetricRegistry();

  RdmaShuffleSource(RdmaShuffleManager manager) {
    RecentSnapshot recent = new RecentSnapshot(manager::metricsSnapshot, SNAPSHOT_NANOS);
    // the names of every counter the manager reports; values are read when a sink asks
    for (String name : manager.metricsSnapshot().keySet()) {
      registry.register(name, (Gauge<Long>) () -> recent.get().getOrDefault(name, 0L));
    }
    registry.register(
        SparkCounter.READ_LATENCY_MICROS.exportName(), new BucketHistogram(manager::readLatency));
  }

  @Override
  public String sourceName() {
    return "rdmaShuffle";
  }

  @Override
  public MetricRegistry metricRegistry() {
    return registry;
  }

  /** The last snapshot taken, taken again once it is older than its bound. Thread-safe. */
  static final class RecentSnapshot {
    private final Supplier<Map<String, Long>> take;
    private final long maxAgeNanos;
    private Map<String, Long> last;
    private long takenAt;

    RecentSnapshot(Supplier<Map<String, Long>> take, long maxAgeNanos) {
      this.take = take;
      this.maxAgeNanos = maxAgeNanos;
    }

    synchronized Map<String, Long> get() {
      long now = System.nanoTime();
      if (last == null || now - takenAt > maxAgeNanos) {
        last = take.get();
        takenAt = now;
      }
      return last;
    }
  }

  /**
   * A Dropwizard histogram over the transport's READ latency buckets (power-of-two µs; see {@link
   * LatencyHistogram}), so sinks see count and percentiles without a second recording.
   */
  static final class BucketHistogram extends Histogram {
    private final Supplier<LatencyHistogram> source;

    BucketHistogram(Supplier<LatencyHistogram> source) {
      super(new NoReservoir());
      this.source = source;
    }

    @Override
    public long getCount() {
      LatencyHistogram h = source.get();
      return h == null ? 0 : h.count();
    }

    @Override
    public Snapshot getSnapshot() {
      return new BucketSnapshot(source.get());
    }
  }

  private static final class NoReservoir implements Reservoir {
    @Override
    public int size() {
      return 0;
    }

    @Override
    public void update(long value) {}

    @Override
    public Snapshot getSnapshot() {
      return new BucketSnapshot(null);
    }
  }

  /** Percentiles of a bucketed histogram: each value is its bucket's upper bound in µs. */
  static final class BucketSnapshot extends Snapshot {
    private final long[] counts = new long[LatencyHistogram.BUCKETS];
    private final long total;

    BucketSnapshot(LatencyHistogram h) {
      long n = 0;
      if (h != null) {
        for (int i = 0; i < counts.length; i++) {
          counts[i] = h.bucket(i);
          n += counts[i];
        }
      }
      total = n;
    }

    @Override
    public double getValue(double quantile) {
      if (total == 0) {
        return 0;
      }
      long rank = Math.max(1, (long) Math.ceil(quantile * total));
      long seen = 0;
      for (int i = 0; i < counts.length; i++) {
        seen += counts[i];
        if (seen >= rank) {
          return LatencyHistogram.bucketUpperMicros(i);
        }
      }
      return LatencyHistogram.bucketUpperMicros(counts.length - 1);
    }

    @Override
    public long[] getValues() {
      long[] v = new long[(int) Math.min(total, 1 << 16)];
      int k = 0;
      for (int i = 0; i < counts.length && k < v.length; i++) {
        for (long c = 0; c < counts[i] && k < v.length; c++) {
          v[k++] = LatencyHistogram.bucketUpperMicros(i);
        }
      }
      return v;
    }

    @Override
    public int size() {
      return (int) Math.min(total, Integer.MAX_VALUE);
    }

    @Override
    public long getMax() {
      for (int i = counts.length - 1; i >= 0; i--) {
        if (counts[i] > 0) {
          return LatencyHistogram.bucketUpperMicros(i);
        }
      }
      return 0;
    }

    @Override
    public double getMean() {
      if (total == 0) {
        return 0;
      }
      double sum = 0;
      for (int i = 0; i < counts.length; i++) {
        sum += counts[i] * (double) LatencyHistogram.bucketUpperMicros(i);
      }
      return sum / total;
    }

    @Override
    public long getMin() {
      for (int i = 0; i < counts.length; i++) {
        if (counts[i] > 0) {
          return LatencyHistogram.bucketUpperMicros(i);
        }
      }
      return 0;
    }

    @Override
    public double getStdDev() {
      if (total == 0) {
        return 0;
      }
      double mean = getMean();
      double sq = 0;
      for (int i = 0; i < counts.length; i++) {
        double d = LatencyHistogram.bucketUpperMicros(i) - mean;
        sq += counts[i] * d * d;
      }
      return Math.sqrt(sq / total);
    }

    @Override
    public void dump(OutputStream output) {
      try (PrintWriter out =
          new PrintWriter(new java.io.OutputStreamWriter(output, StandardCharsets.UTF_8))) {
        for (int i = 0; i < counts.length; i++) {
          if (counts[i] > 0) {
            out.printf("%d %d%n", LatencyHistogram.bucketUpperMicros(i), counts[i]);
          }
        }
      }
    }
  }

  /** The names this source registers (tests). */
  static Map<String, ?> names(RdmaShuffleSource s) {
    return s.registry.getMetrics();
  }
}
