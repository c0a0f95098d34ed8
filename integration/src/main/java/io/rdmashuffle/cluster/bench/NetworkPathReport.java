/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.bench.Machine;
import io.rdmashuffle.cluster.bench.NetworkPathBenchmark.Setting;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/** The network-path benchmark's markdown result file. */
final class NetworkPathReport {
  private final NetworkPathOptions o;
  private final List<Setting> settings;
  private final String digest;
  private final String loadAtStart;
  private final String loadAtEnd;
  private final double minutes;
  private final StringBuilder md = new StringBuilder();

  NetworkPathReport(
      NetworkPathOptions o,
      List<Setting> settings,
      String digest,
      String loadAtStart,
      String loadAtEnd,
      double minutes) {
    this.o = o;
    this.settings = settings;
    this.digest = digest;
    this.loadAtStart = loadAtStart;
    this.loadAtEnd = loadAtEnd;
    this.minutes = minutes;
  }

  private void line(String format, Object... args) {
    md.append(String.format(Locale.ROOT, format, args)).append('\n');
  }

  String markdown() {
    line("# Network-path benchmark: stock shuffle vs rdma-shuffle (tcp) across hosts");
    line("");
    line(
        "`integration/bin/bench-network-path --hosts %d --rates %s --rounds %d --bytes %d"
            + " --record %d --maps %d --reduces %d%s%s%s%s` (%.1f min in all)",
        o.hosts(),
        rates(),
        o.rounds(),
        o.bytes(),
        o.recordBytes(),
        o.maps(),
        o.reduces(),
        o.compress() ? " --compress" : "",
        o.warmUpBytes() > 0 ? " --warm-up " + o.warmUpBytes() : "",
        flags("stock-conf", o.stockConf()),
        flags("ours-conf", o.oursConf()),
        minutes);
    line("");
    line("## Machine");
    line("");
    line("```");
    md.append(Machine.describe());
    line("nproc: %d", Runtime.getRuntime().availableProcessors());
    line("load average (1, 5, 15 min): %s at the start, %s at the end", loadAtStart, loadAtEnd);
    line("```");
    line("");
    line(
        "The machine is shared with other sessions' builds and tests: the load average above and"
            + " per run below says how much. Absolute times mean little; compare the sides within a"
            + " round. **verbs was not measured**: there is no RDMA device on this host (Soft-RoCE"
            + " runs only in a QEMU guest, which this benchmark does not use), so \"ours\" is the"
            + " `tcp` transport throughout.");
    line("");
    settingsSection();
    summary();
    threads();
    for (Setting s : settings) {
      rounds(s);
    }
    line("## Results check");
    line("");
    line(
        "Every run of both sides and both settings returned the same %s (the runner fails"
            + " otherwise), and the count equals what the map tasks generated.",
        digest);
    return md.toString();
  }

  private static String flags(String name, Map<String, String> conf) {
    StringBuilder b = new StringBuilder();
    conf.forEach(
        (k, v) -> b.append(" --").append(name).append(' ').append(k).append('=').append(v));
    return b.toString();
  }

  private static String settingsOf(Map<String, String> conf) {
    StringBuilder b = new StringBuilder();
    conf.forEach((k, v) -> b.append(" + `").append(k).append('=').append(v).append('`'));
    return b.toString();
  }

  private String rates() {
    return String.join(
        ",", settings.stream().map(s -> s.rate() == null ? "none" : s.rate().toString()).toList());
  }

  private void settingsSection() {
    line("## Settings");
    line("");
    line(
        "* Cluster harness: %d hosts (network namespaces on a bridge, 198.18.100.0/24), Spark"
            + " standalone: a Master, a Worker per host (2 cores, 2g), one executor per Worker (2"
            + " cores, 1g); the driver in the root namespace. A fresh cluster per link setting.",
        o.hosts());
    line(
        "* Application: `NetworkPathApp`, %d map tasks generate %.0f MiB of %s %d-byte records,"
            + " `repartition(%d)`, the reduce tasks count them and sum their CRC32C;"
            + " `spark.shuffle.compress=%s`, Java serializer.",
        o.maps(),
        o.shuffledBytes() / 1048576.0,
        o.compress()
            ? "compressible (8-byte words of a " + NetworkPathApp.VOCABULARY + "-word vocabulary)"
            : "random (incompressible)",
        o.recordBytes(),
        o.reduces(),
        o.compress() ? "true (lz4)" : "false");
    line(
        "* stock: Spark's sort shuffle, blocks served by Netty (`NettyBlockTransferService`)%s."
            + " ours: `withRdmaShuffle()` + `spark.shuffle.rdma.transport=tcp`%s.",
        settingsOf(o.stockConf()), settingsOf(o.oursConf()));
    if (o.warmUpBytes() > 0) {
      line(
          "* Warm-up: each application first runs the same shuffle of %.0f MiB (other seeds) in"
              + " the same executors, not measured; every figure below is of the shuffle after it,"
              + " which meets JVMs whose JIT compilers and buffer pools have warmed up, as a"
              + " long-lived application's later shuffles do.",
          o.warmUpBytes() / 1048576.0);
    }
    line(
        "* Rounds: %d per setting, both sides per round, alternating which runs first"
            + " (stock, ours | ours, stock | ...).",
        o.rounds());
    for (Setting s : settings) {
      line(
          "* %s: tc `%s`; load average at the cluster's start %s.",
          NetworkPathOptions.label(s.rate()), s.qdisc(), s.loadAtStart());
    }
    line("");
    line("What each figure is:");
    line("");
    line("* job: the shuffle job's wall time in the driver (map and reduce stage).");
    line("* reduce stage: submission to completion of the reduce stage (SparkListener).");
    line(
        "* fetch wait: the reduce tasks' `ShuffleReadMetrics.fetchWaitTime` over their summed"
            + " run time.");
    line(
        "* served: `remoteBytesRead` of the reduce tasks (every remote byte was served by another"
            + " executor).");
    line(
        "* serving CPU: utime+stime from `/proc/<executor>/task/*/stat` of the threads that serve"
            + " blocks, summed over all executors, between two samples the runner takes when the"
            + " driver says the job starts and when it ended (the driver waits for the sample both"
            + " times). Serving threads by name (`comm`, 15 bytes): Spark's `shuffle-server-*`"
            + " (TransportServer's Netty event loops), `shuffle-chunk-fetch-handler` and"
            + " `shuffle-client-*` (the fetching side's Netty event loops); ours `rdma-io-*` (the"
            + " connection server's I/O threads: they serve tcp READs, receive this process's own"
            + " READ responses and carry its calls),"
            + " `rdma-accept-*`, `rdma-call-*` (locate). Both sets are counted on both sides. Serving"
            + " threads have nothing to serve before the reduce stage: the column \"before reduce\""
            + " shows their ticks between the job's start and the reduce stage's submission. The"
            + " resolution is 10 ms per thread, so the same threads' nanoseconds on a CPU from"
            + " `/proc/<executor>/task/*/schedstat` are given beside it (\"sched\").");
    line(
        "* serving CPU/GB: serving CPU seconds per 10^9 bytes served. Work the kernel does for"
            + " a send outside the sending thread (softirq, the tbf queue's timer) is not in it, on"
            + " either side.");
    line(
        "* link floor: bytes each host sends (served bytes / hosts) at %.3f of the tbf rate (what"
            + " TCP over 1500-byte frames can carry of it, headers and ACKs counted), the reduce"
            + " stage's lower bound when the link is the bottleneck (`T_link` of"
            + " `docs/performance.md`).",
        ReduceStageModel.TCP_PAYLOAD_SHARE);
    line(
        "* link balance: the bytes the busiest host link carried in either direction over the"
            + " reduce stage over the mean host's, read from the bridge side of each host's veth: 1.00"
            + " when the traffic was spread evenly, as the link floor assumes (the floor is too low"
            + " by this factor otherwise).");
    line(
        "* tasks launched: seconds from the reduce stage's submission to its first and its last"
            + " task's launch (the driver's `TaskInfo.launchTime`): the scheduler's share of the"
            + " start-up, the same for both sides.");
    line(
        "* links busy from, to the end: the links' byte counters are sampled every %d ms from the"
            + " reduce stage's submission; \"from\" is the seconds until the first interval in which"
            + " the hosts received at least %.0f %% of what their links could carry, \"to the end\""
            + " the seconds the stage went on after the start of the last such interval: the"
            + " stage's start-up and its tail, when the links were mostly idle. The executors' CPU"
            + " until the links were busy is their utime+stime over that start-up, as a share of"
            + " this machine's cores (1.00: the start-up was CPU-bound). Each run's samples are in"
            + " `timeline.csv` of its directory.",
        ServingCpuProbe.LINK_SAMPLE_MILLIS, 100 * StageTimeline.BUSY);
    line(
        "* reduce CPU: the executors' whole CPU (utime+stime of their processes) from the reduce"
            + " stage's submission to the job's end; CPU floor: that over this machine's %d cores,"
            + " which every host of the harness shares (`T_cpu`).",
        Runtime.getRuntime().availableProcessors());
    line(
        "* model: the larger of the two floors, the performance model's reduce stage without its"
            + " round trips; reduce stage / model is how far the measured stage is from it.");
    line("");
  }

  private void summary() {
    line("## Medians and ratios ours/stock");
    line("");
    line("| setting | metric | stock | ours | ours/stock | per round: median (range) |");
    line("| --- | --- | ---: | ---: | ---: | ---: |");
    for (Setting s : settings) {
      String l = NetworkPathOptions.label(s.rate());
      row(s, l, "job time (s)", RunResult::jobSeconds, "%.1f");
      row(s, l, "map stage (s)", RunResult::mapStageSeconds, "%.1f");
      row(s, l, "reduce stage (s)", RunResult::reduceStageSeconds, "%.1f");
      if (s.rate() != null) {
        row(
            s,
            l,
            "reduce stage / link floor",
            r -> r.reduceStageSeconds() / linkFloor(s, r),
            "%.2f");
      }
      if (s.rate() != null) {
        row(s, l, "link balance (busiest / mean)", RunResult::linkBalance, "%.2f");
        row(s, l, "reduce tasks all launched after (s)", RunResult::lastLaunchSeconds, "%.2f");
        row(s, l, "links busy from (s)", r -> r.linkStartSeconds(s.rate()), "%.2f");
        row(s, l, "links busy to the end (s)", r -> r.linkTailSeconds(s.rate()), "%.2f");
        row(
            s,
            l,
            "executors' CPU until the links were busy (share of the cores)",
            r -> r.startCpuShare(s.rate()),
            "%.2f");
      }
      row(s, l, "reduce stage / model", r -> r.reduceStageSeconds() / model(s, r), "%.2f");
      row(s, l, "executors' CPU over the reduce stage (s)", RunResult::reduceCpuSeconds, "%.1f");
      row(s, l, "fetch wait share (%)", r -> 100 * r.fetchWaitShare(), "%.1f");
      row(s, l, "serving CPU per GB (s)", RunResult::servingCpuPerGb, "%.3f");
      row(s, l, "serving CPU per GB, schedstat (s)", RunResult::servingSchedCpuPerGb, "%.3f");
      row(s, l, "serving CPU (s)", RunResult::servingCpuSeconds, "%.2f");
      row(s, l, "executors' CPU over the job (s)", RunResult::executorCpuSeconds, "%.1f");
    }
    line("");
    line(
        "Ratios are of the medians over the rounds. Per round: ours over stock within each round"
            + " (the two sides ran back to back), their median and range; a range that spans 1.00"
            + " says the rounds disagree on which side was faster.");
    line("");
  }

  /** Threads below this median in every column are left out of {@link #threads}. */
  static final double THREAD_TICKS_SHOWN = 5;

  /**
   * The executors' CPU by thread, before the reduce stage (the job's start to its submission: the
   * map stage) and over it, medians over the rounds (a thread absent from a run counts 0): where
   * one side's extra CPU goes.
   */
  private void threads() {
    line("## Executors' CPU by thread (ticks of 10 ms, all executors, medians over the rounds)");
    line("");
    line(
        "Every thread of the executors, by name with its numbers as `#` (`comm`: the first 15"
            + " bytes of the Java name), from `/proc/<executor>/task/*/stat` at the job's start, the"
            + " reduce stage's submission and the job's end; \"%s\" is what the processes used"
            + " beyond their live threads. Threads below %.0f ticks in every column are left out;"
            + " the totals count them. Each run's figures are in `threads.csv` of its directory.",
        ThreadCpu.ENDED, THREAD_TICKS_SHOWN);
    line("");
    line(
        "| setting | thread | before the reduce stage: stock | ours | ours - stock | over the"
            + " reduce stage: stock | ours | ours - stock |");
    line("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (Setting s : settings) {
      String l = NetworkPathOptions.label(s.rate());
      Set<String> names = new TreeSet<>();
      for (RunResult r : s.runs()) {
        names.addAll(r.cpu().threads(true).keySet());
        names.addAll(r.cpu().threads(false).keySet());
      }
      List<double[]> rows = new ArrayList<>();
      List<String> shown = new ArrayList<>();
      for (String n : names) {
        double[] v = {
          threadMedian(s, "stock", n, true),
          threadMedian(s, "ours", n, true),
          threadMedian(s, "stock", n, false),
          threadMedian(s, "ours", n, false)
        };
        if (Arrays.stream(v).max().orElse(0) >= THREAD_TICKS_SHOWN) {
          rows.add(v);
          shown.add(n);
        }
      }
      for (int i = 0; i < rows.size(); i++) {
        double[] v = rows.get(i);
        line(
            "| %s | `%s` | %.0f | %.0f | %+.0f | %.0f | %.0f | %+.0f |",
            l, shown.get(i), v[0], v[1], v[1] - v[0], v[2], v[3], v[3] - v[2]);
      }
      double[] t = {
        threadTotal(s, "stock", true),
        threadTotal(s, "ours", true),
        threadTotal(s, "stock", false),
        threadTotal(s, "ours", false)
      };
      line(
          "| %s | all | %.0f | %.0f | %+.0f | %.0f | %.0f | %+.0f |",
          l, t[0], t[1], t[1] - t[0], t[2], t[3], t[3] - t[2]);
    }
    line("");
  }

  private static double threadMedian(Setting s, String side, String name, boolean beforeReduce) {
    return Medians.median(s.side(side), r -> r.cpu().threads(beforeReduce).getOrDefault(name, 0L));
  }

  private static double threadTotal(Setting s, String side, boolean beforeReduce) {
    return Medians.median(
        s.side(side),
        r -> r.cpu().threads(beforeReduce).values().stream().mapToLong(Long::longValue).sum());
  }

  /** {@code T_link} of {@code r}: NaN when the links were not rate-limited. */
  private double linkFloor(Setting s, RunResult r) {
    return s.rate() == null
        ? Double.NaN
        : ReduceStageModel.linkFloorSeconds(r.remoteBytes(), o.hosts(), s.rate());
  }

  private static double cpuFloor(RunResult r) {
    return ReduceStageModel.cpuFloorSeconds(
        r.reduceCpuSeconds(), Runtime.getRuntime().availableProcessors());
  }

  private double model(Setting s, RunResult r) {
    return ReduceStageModel.predictedSeconds(
        ReduceStageModel.linkFloorSeconds(r.remoteBytes(), o.hosts(), s.rate()), cpuFloor(r));
  }

  private void row(
      Setting s, String label, String metric, ToDoubleFunction<RunResult> f, String number) {
    double stock = Medians.median(s.side("stock"), f);
    double ours = Medians.median(s.side("ours"), f);
    line(
        "| %s | %s | " + number + " | " + number + " | %s | %s |",
        label,
        metric,
        stock,
        ours,
        Medians.format(Medians.ratio(ours, stock)),
        Medians.formatSpread(
            Medians.pairedRatios(s.side("stock"), s.side("ours"), RunResult::round, f)));
  }

  private static String orDash(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  private void rounds(Setting s) {
    line("## Runs: %s", NetworkPathOptions.label(s.rate()));
    line("");
    line(
        "| round | side | job (s) | map stage (s) | reduce stage (s) | link floor (s) | reduce CPU"
            + " (s) | CPU floor (s) | model (s) | fetch wait | served (GB) | serving CPU (s) | s/GB"
            + " | sched s/GB | by thread (ticks) | before reduce (ticks) | executors' CPU (s)"
            + " | busiest link (MB) | link balance | tasks launched (s) | links busy from (s)"
            + " | to the end (s)"
            + " | per host in/out (MB) | load |");
    line(
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---:"
            + " | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |");
    for (RunResult r : s.runs()) {
      double link = linkFloor(s, r);
      String floor = Double.isNaN(link) ? "-" : String.format(Locale.ROOT, "%.1f", link);
      line(
          "| %d | %s | %.1f | %.1f | %.1f | %s | %.1f | %.1f | %.1f | %.1f %% | %.3f | %.2f | %.3f"
              + " | %.3f | %s | %d | %.1f | %.1f | %s | %.2f-%.2f | %s | %s | %s | %s |",
          r.round(),
          r.side(),
          r.jobSeconds(),
          r.mapStageSeconds(),
          r.reduceStageSeconds(),
          floor,
          r.reduceCpuSeconds(),
          cpuFloor(r),
          model(s, r),
          100 * r.fetchWaitShare(),
          r.remoteBytes() / 1e9,
          r.servingCpuSeconds(),
          r.servingCpuPerGb(),
          r.servingSchedCpuPerGb(),
          r.servingByPrefix().toString().replace("|", "/"),
          r.cpu().servingTicksBeforeReduce(),
          r.executorCpuSeconds(),
          r.busiestLinkMegabytes(),
          orDash(r.linkBalance()),
          r.reduceFirstLaunch() / 1e3,
          r.reduceLastLaunch() / 1e3,
          orDash(r.linkStartSeconds(s.rate())),
          orDash(r.linkTailSeconds(s.rate())),
          r.cpu().links() == null ? "-" : r.cpu().links().perHostMegabytes(),
          r.load());
    }
    line("");
  }
}
