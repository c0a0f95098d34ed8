/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.cluster.net.Rate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A reduce stage as the runner saw it, sampled about every 100 ms: the executors' CPU ticks, and
 * what crossed each host's link, from the byte counters of the bridge side of its veth (root
 * namespace): {@code tx_bytes} there is what reached the host, {@code rx_bytes} what it sent. These
 * are the bytes {@code tbf} paces (frames with their Ethernet, IP and TCP headers, ACKs included),
 * so the busiest link's bytes at the full rate are the stage's floor for the traffic as it was,
 * wherever the map outputs and reduce tasks landed: {@link ReduceStageModel#linkFloorSeconds}
 * assumes every host sends an equal share of the payload.
 *
 * <p>The samples also show when the links were busy: {@link #start} is how long after the stage's
 * submission the links first carried at least half of what they could in a sample's interval, and
 * {@link #tail} how long the stage went on after they last did; {@link #cpuShareBefore} how busy
 * the executors kept the machine's cores until then.
 */
final class StageTimeline {
  /** The share of the hosts' capacity a sample's interval must use to count as busy. */
  static final double BUSY = 0.5;

  /**
   * One sample: wall-clock millis, per host the bytes it received and sent so far, and the
   * executors' CPU ticks so far (utime+stime of their processes, summed).
   */
  record Sample(long millis, long[] received, long[] sent, long cpuTicks) {}

  private final List<Sample> samples;

  StageTimeline(List<Sample> samples) {
    this.samples = List.copyOf(samples);
  }

  List<Sample> samples() {
    return samples;
  }

  /**
   * Reads the counters of {@code links} (their {@code /sys/class/net/<link>} directories); {@code
   * cpuTicks} is the executors' CPU so far.
   */
  static Sample read(List<Path> links, long millis, long cpuTicks) {
    long[] received = new long[links.size()];
    long[] sent = new long[links.size()];
    for (int i = 0; i < links.size(); i++) {
      received[i] = counter(links.get(i), "tx_bytes");
      sent[i] = counter(links.get(i), "rx_bytes");
    }
    return new Sample(millis, received, sent, cpuTicks);
  }

  private static long counter(Path link, String name) {
    Path f = link.resolve("statistics").resolve(name);
    try {
      return Long.parseLong(Files.readString(f).trim());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + f, e);
    }
  }

  /** The bytes the busiest link carried in either direction between the first and last sample. */
  long busiestBytes() {
    if (samples.size() < 2) {
      return 0;
    }
    Sample a = samples.get(0);
    Sample b = samples.get(samples.size() - 1);
    long most = 0;
    for (int h = 0; h < a.received().length; h++) {
      most = Math.max(most, b.received()[h] - a.received()[h]);
      most = Math.max(most, b.sent()[h] - a.sent()[h]);
    }
    return most;
  }

  /**
   * Per host, MB received/sent between the first and last sample, e.g. {@code "151/150 149/152"};
   * empty without two samples.
   */
  String perHostMegabytes() {
    if (samples.size() < 2) {
      return "";
    }
    Sample a = samples.get(0);
    Sample b = samples.get(samples.size() - 1);
    StringBuilder out = new StringBuilder();
    for (int h = 0; h < a.received().length; h++) {
      out.append(h == 0 ? "" : " ")
          .append(Math.round((b.received()[h] - a.received()[h]) / 1e6))
          .append('/')
          .append(Math.round((b.sent()[h] - a.sent()[h]) / 1e6));
    }
    return out.toString();
  }

  /**
   * The busiest link's bytes over the mean host's (what the hosts received, over their number): 1
   * when the traffic was spread evenly, and the factor by which the link floor is then too low; NaN
   * without two samples or traffic.
   */
  double balance() {
    if (samples.size() < 2) {
      return Double.NaN;
    }
    Sample a = samples.get(0);
    Sample b = samples.get(samples.size() - 1);
    long total = 0;
    for (int h = 0; h < a.received().length; h++) {
      total += b.received()[h] - a.received()[h];
    }
    return total == 0 ? Double.NaN : busiestBytes() / (total / (double) a.received().length);
  }

  /**
   * Millis from {@code stageStart} to the end of the first interval in which the hosts received at
   * least {@link #BUSY} of what their links could carry in it (at the full rate: the counters'
   * bytes lack a few percent of headers, which this threshold does not need); -1 when none did.
   */
  long start(long stageStart, Rate rate) {
    for (int i = 1; i < samples.size(); i++) {
      if (busy(i, rate)) {
        return samples.get(i).millis() - stageStart;
      }
    }
    return -1;
  }

  /**
   * Millis from the start of the last interval in which the hosts received at least {@link #BUSY}
   * of what their links could carry to {@code stageEnd}; -1 when none did.
   */
  long tail(long stageEnd, Rate rate) {
    for (int i = samples.size() - 1; i >= 1; i--) {
      if (busy(i, rate)) {
        return stageEnd - samples.get(i - 1).millis();
      }
    }
    return -1;
  }

  /**
   * The share of {@code cores} the executors used from the first sample to the end of the first
   * half-busy interval of the links ({@link #start}); NaN when the links were never half busy.
   */
  double cpuShareBefore(Rate rate, int cores) {
    for (int i = 1; i < samples.size(); i++) {
      if (busy(i, rate)) {
        Sample a = samples.get(0);
        Sample b = samples.get(i);
        double seconds = (b.millis() - a.millis()) / 1e3;
        return (b.cpuTicks() - a.cpuTicks())
            / (double) ThreadCpu.TICKS_PER_SECOND
            / seconds
            / cores;
      }
    }
    return Double.NaN;
  }

  /**
   * The samples as CSV, a line each: millis since {@code stageStart}, the executors' CPU ticks and
   * per host the bytes received and sent, all since the first sample.
   */
  String csv(long stageStart) {
    StringBuilder out = new StringBuilder("millis,cpu_ticks");
    if (samples.isEmpty()) {
      return out.append('\n').toString();
    }
    Sample first = samples.get(0);
    for (int h = 0; h < first.received().length; h++) {
      out.append(",in").append(h + 1).append(",out").append(h + 1);
    }
    out.append('\n');
    for (Sample x : samples) {
      out.append(x.millis() - stageStart).append(',').append(x.cpuTicks() - first.cpuTicks());
      for (int h = 0; h < first.received().length; h++) {
        out.append(',')
            .append(x.received()[h] - first.received()[h])
            .append(',')
            .append(x.sent()[h] - first.sent()[h]);
      }
      out.append('\n');
    }
    return out.toString();
  }

  /** Whether the interval ending at sample {@code i} used at least {@link #BUSY} of the links. */
  private boolean busy(int i, Rate rate) {
    Sample a = samples.get(i - 1);
    Sample b = samples.get(i);
    long millis = b.millis() - a.millis();
    if (millis <= 0) {
      return false;
    }
    long bytes = 0;
    for (int h = 0; h < a.received().length; h++) {
      bytes += b.received()[h] - a.received()[h];
    }
    double capacity = a.received().length * rate.bitsPerSecond() / 8.0 * millis / 1000.0;
    return bytes >= BUSY * capacity;
  }

  /** Collects samples; used by one thread. */
  static final class Recorder {
    private final List<Path> links;
    private final List<Sample> samples = new ArrayList<>();

    Recorder(List<Path> links) {
      this.links = List.copyOf(links);
    }

    void sample(long cpuTicks) {
      samples.add(read(links, System.currentTimeMillis(), cpuTicks));
    }

    boolean started() {
      return !samples.isEmpty();
    }

    long lastMillis() {
      return samples.isEmpty() ? Long.MIN_VALUE : samples.get(samples.size() - 1).millis();
    }

    StageTimeline timeline() {
      return new StageTimeline(samples);
    }
  }
}
