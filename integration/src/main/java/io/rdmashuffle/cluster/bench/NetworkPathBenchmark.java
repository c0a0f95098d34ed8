/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.cluster.Cluster;
import io.rdmashuffle.cluster.ClusterPaths;
import io.rdmashuffle.cluster.ClusterSpec;
import io.rdmashuffle.cluster.net.Rate;
import io.rdmashuffle.cluster.net.Root;
import io.rdmashuffle.cluster.spark.SparkApplication;
import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Progress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The network-path benchmark: the stock shuffle against rdma-shuffle's {@code tcp} transport on the
 * cluster harness, where every executor is a host of its own and blocks cross a link. For each link
 * setting (a {@code tbf} rate per host link, or none) it starts a Spark standalone cluster once and
 * runs {@link NetworkPathApp} in rounds, both sides per round, alternating which goes first. Per
 * run: job and reduce-stage time, the reduce tasks' fetch-wait share, bytes served, and the serving
 * threads' CPU per GB served, sampled from {@code /proc} by a {@link ServingCpuProbe} at the job's
 * boundaries. Fails when a run fails or when the two sides' results differ. Writes a markdown
 * report ({@link NetworkPathReport}). Needs root.
 *
 * <p>Run through {@code bin/rdma-shuffle bench network-path} ({@link NetworkPathOptions#USAGE}),
 * which sets the harness's {@code cluster.*} system properties.
 */
public final class NetworkPathBenchmark {
  static final String CLUSTER_NAME = "network-path";
  private static final String BUSY = "a harness cluster is running";

  /** Each run's {@link StageTimeline} samples, in its directory. */
  static final String TIMELINE = "timeline.csv";

  static final String THREADS = "threads.csv";

  private NetworkPathBenchmark() {}

  /** One link setting and its runs. */
  record Setting(Rate rate, String qdisc, String loadAtStart, List<RunResult> runs) {
    List<RunResult> side(String side) {
      return runs.stream().filter(r -> r.side().equals(side)).toList();
    }
  }

  public static void main(String[] args) {
    Cli.main(
        "bench network-path", NetworkPathOptions.USAGE, args, a -> run(NetworkPathOptions.read(a)));
  }

  private static int run(NetworkPathOptions o) throws Exception {
    if (!Root.isRoot()) {
      System.err.println("bench network-path: " + Root.NEEDED);
      return 1;
    }
    ClusterPaths paths = ClusterPaths.fromSystemProperties();
    String loadAtStart = loadAverage();
    long t0 = System.nanoTime();
    List<Setting> settings = new ArrayList<>();
    List<String> steps = new ArrayList<>();
    for (Rate rate : o.rates()) {
      for (int round = 1; round <= o.rounds(); round++) {
        for (String side : order(round)) {
          steps.add(NetworkPathOptions.label(rate) + " " + side);
        }
      }
    }
    // a line per run: each is a result worth keeping on the screen
    Progress progress = new Progress(steps, System.out, false, t0);
    for (Rate rate : o.rates()) {
      settings.add(runSetting(o, paths, rate, progress));
    }
    String digest = checkEqual(settings);
    double minutes = (System.nanoTime() - t0) / 60e9;
    Files.createDirectories(o.out().toAbsolutePath().getParent());
    Files.writeString(
        o.out(),
        new NetworkPathReport(o, settings, digest, loadAtStart, loadAverage(), minutes).markdown());
    System.out.println("results: " + o.out());
    return 0;
  }

  /** Stock first in odd rounds, ours first in even ones. */
  private static List<String> order(int round) {
    return round % 2 == 1 ? List.of("stock", "ours") : List.of("ours", "stock");
  }

  private static Setting runSetting(
      NetworkPathOptions o, ClusterPaths paths, Rate rate, Progress progress)
      throws IOException, InterruptedException {
    ClusterSpec spec =
        ClusterSpec.builder(CLUSTER_NAME)
            .hosts(o.hosts())
            .spark()
            .workers(2, "2g")
            .rate(rate)
            .build();
    String load = loadAverage();
    List<RunResult> runs = new ArrayList<>();
    try (Cluster c = startWhenFree(spec, paths, o.waitClusterSeconds())) {
      String qdisc = rate == null ? "none" : c.network().qdiscs(1);
      for (int round = 1; round <= o.rounds(); round++) {
        for (String side : order(round)) {
          long start = System.nanoTime();
          RunResult r = runOne(c, o, rate, side, round);
          progress.record(
              NetworkPathOptions.label(rate) + " " + side, (System.nanoTime() - start) / 1e9);
          progress.print(
              progress.status(
                  String.format(
                      Locale.ROOT,
                      "%s round %d of %d %-5s job %.1f s, reduce stage %.1f s,"
                          + " fetch wait %.1f %%, served %.3f GB, serving CPU %.2f s (%.3f s/GB, sched %.3f s/GB) %s",
                      NetworkPathOptions.label(rate),
                      round,
                      o.rounds(),
                      side,
                      r.jobSeconds(),
                      r.reduceStageSeconds(),
                      100 * r.fetchWaitShare(),
                      r.remoteBytes() / 1e9,
                      r.servingCpuSeconds(),
                      r.servingCpuPerGb(),
                      r.servingSchedCpuPerGb(),
                      r.servingByPrefix()),
                  System.nanoTime(),
                  0));
          runs.add(r);
        }
      }
      return new Setting(rate, qdisc, load, runs);
    }
  }

  private static RunResult runOne(
      Cluster c, NetworkPathOptions o, Rate rate, String side, int round)
      throws IOException, InterruptedException {
    String name =
        "np-" + (rate == null ? "unlimited" : rate.toString()) + "-r" + round + "-" + side;
    Path dir = c.shared().resolve(name);
    Files.createDirectories(dir);
    SparkApplication app =
        c.spark()
            .application(name, NetworkPathApp.class.getName())
            .conf("spark.executor.memory", "1g")
            .conf("spark.ui.enabled", "false")
            // random bytes do not compress: compressing them would only spend CPU
            .conf("spark.shuffle.compress", Boolean.toString(o.compress()))
            .conf("spark.shuffle.spill.compress", Boolean.toString(o.compress()))
            .args(
                dir.toString(),
                Integer.toString(o.hosts()),
                Long.toString(o.bytes()),
                Integer.toString(o.recordBytes()),
                Integer.toString(o.maps()),
                Integer.toString(o.reduces()),
                Boolean.toString(o.compress()),
                Long.toString(o.warmUpBytes()));
    if (side.equals("ours")) {
      app.withRdmaShuffle().conf("spark.shuffle.rdma.transport", "tcp");
    }
    o.sideConf(side).forEach(app::conf);
    String load = loadAverage();
    List<Path> links =
        c.network().plan().indexes().stream()
            .map(i -> Path.of("/sys/class/net", c.network().plan().rootLink(i)))
            .toList();
    ServingCpuProbe probe = new ServingCpuProbe(dir, o.hosts(), links);
    Thread t = new Thread(probe, "serving-cpu-probe");
    t.setDaemon(true);
    t.start();
    SparkApplication.Outcome out = app.run(o.timeoutSeconds());
    probe.stop();
    t.join(10_000);
    if (!out.ok()) {
      throw new IllegalStateException(
          name
              + " failed (exit "
              + out.exitCode()
              + "), log "
              + out.log()
              + (probe.error() == null ? "" : ", CPU probe: " + probe.error())
              + ":\n"
              + out.tail());
    }
    if (probe.error() != null) {
      throw new IllegalStateException(name + ": " + probe.error());
    }
    RunResult r =
        RunResult.read(
            side, round, dir.resolve(NetworkPathApp.RESULT), probe.result(), out.seconds(), load);
    if (r.cpu().links() != null) {
      Files.writeString(dir.resolve(TIMELINE), r.cpu().links().csv(r.reduceStageSubmitted()));
    }
    Files.writeString(dir.resolve(THREADS), r.cpu().threadsCsv());
    if (r.records() != o.recordsPerMap() * o.maps()) {
      throw new IllegalStateException(
          name
              + ": the reduce tasks counted "
              + r.records()
              + " records, the map tasks wrote "
              + o.recordsPerMap() * o.maps());
    }
    return r;
  }

  /** Every run of every setting returned the same count, bytes and checksum. */
  static String checkEqual(List<Setting> settings) {
    String first = null;
    for (Setting s : settings) {
      for (RunResult r : s.runs()) {
        if (first == null) {
          first = r.digest();
        } else if (!first.equals(r.digest())) {
          throw new IllegalStateException(
              "results differ: "
                  + r.side()
                  + " round "
                  + r.round()
                  + " at "
                  + NetworkPathOptions.label(s.rate())
                  + " returned "
                  + r.digest()
                  + ", the first run "
                  + first);
        }
      }
    }
    return first;
  }

  /** Starts the cluster, waiting while another harness cluster (another session's test) runs. */
  private static Cluster startWhenFree(ClusterSpec spec, ClusterPaths paths, long waitSeconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + waitSeconds * 1_000_000_000L;
    while (true) {
      try {
        return Cluster.start(spec, paths);
      } catch (IllegalStateException e) {
        if (e.getMessage() == null
            || !e.getMessage().contains(BUSY)
            || System.nanoTime() > deadline) {
          throw e;
        }
        System.out.println("waiting: " + e.getMessage());
        Thread.sleep(15_000);
      }
    }
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "unknown";
    }
  }
}
