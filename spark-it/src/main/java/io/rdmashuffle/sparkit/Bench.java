/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Progress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark shuffle benchmark ({@code bin/rdma-shuffle bench spark}, {@link #USAGE}): a groupByKey
 * and a sortByKey of {@code --bytes} (2 GiB) of records in {@code local-cluster} with two
 * executors, stock shuffle against ours, applications alternating (stock first in odd rounds, ours
 * first in even ones), medians of {@code --runs} rounds. Two comparisons (docs/architecture.md,
 * "Measuring on one machine"):
 *
 * <ul>
 *   <li>{@code headline}: both as configured by default; on one machine the stock shuffle then
 *       reads every block from local disk, and ours from the files, so no transport runs;
 *   <li>{@code transport}: stock with {@code spark.shuffle.readHostLocalDisk=false} (its Netty path
 *       for the other executor's blocks) against ours with {@code read.local=false} (every block
 *       one-sided READ over the tcp transport, its own executor's too).
 * </ul>
 *
 * Not a test: it measures and writes a report; it fails only when results differ.
 */
public final class Bench {
  private Bench() {}

  /** Job times of each run, and the reduce tasks' fetch wait and run time of each run. */
  private record Times(
      List<Double> groupBy, List<Double> sortBy, List<FetchWaitListener.ReduceTime> reduce) {}

  /** One application's timed jobs, in seconds, and its reduce tasks' times. */
  private record Run(double groupBy, double sortBy, FetchWaitListener.ReduceTime reduce) {}

  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench spark [--bytes 2g] [--runs 3] [--memory-mb 2048] [--maps 16]
                 [--modes headline,transport] [--out FILE]
        A groupByKey and a sortByKey of --bytes of records in local-cluster with two executors:
        Spark's stock sort shuffle against ours (tcp transport), applications alternating,
        medians of --runs rounds; headline (both as configured by default) and transport (every
        block over a transport). The report goes to standard output and to --out.
      """;

  public static void main(String[] args) {
    Cli.main("bench spark", USAGE, args, Bench::run);
  }

  private static int run(Cli a) throws Exception {
    long bytes = a.option("bytes", 2L << 30, Cli::bytes);
    int runs = a.intOption("runs", 3);
    int memoryMb = a.intOption("memory-mb", 2048);
    int maps = a.intOption("maps", 16);
    List<String> modes =
        a.option("modes", List.of("headline", "transport"), v -> List.of(v.split(",")));
    Path out = a.option("out", null, Paths::get);
    a.done();
    StringBuilder report = new StringBuilder();
    report
        .append("# Spark shuffle benchmark: stock sort shuffle vs rdma-shuffle (tcp transport)\n\n")
        .append(machine())
        .append("\n")
        .append(
            String.format(
                Locale.ROOT,
                "workload: %d MiB of records (int key out of 1M, 96"
                    + " random bytes), %d map tasks, %d reduce partitions, Kryo, lz4;"
                    + " local-cluster[2,1,%d]; groupByKey then sortByKey of the same records, timed"
                    + " separately; %d rounds, applications alternating; medians.%n%n",
                bytes >> 20,
                maps,
                maps,
                memoryMb,
                runs));
    boolean allEqual = true;
    List<String> steps = new ArrayList<>();
    for (String mode : modes) {
      for (int round = 1; round <= runs; round++) {
        steps.addAll(
            round % 2 == 1
                ? List.of(mode + " stock", mode + " ours")
                : List.of(mode + " ours", mode + " stock"));
      }
    }
    // a line per application: each is a result worth keeping on the screen
    Progress progress = new Progress(steps, System.out, false, System.nanoTime());
    for (String mode : modes) {
      Workloads.Shuffle stock =
          mode.equals("transport") ? Workloads.Shuffle.STOCK_NETWORK : Workloads.Shuffle.STOCK;
      Workloads.Shuffle ours =
          mode.equals("transport") ? Workloads.Shuffle.RDMA_TRANSPORT : Workloads.Shuffle.RDMA;
      Map<Workloads.Shuffle, Times> times = new EnumMap<>(Workloads.Shuffle.class);
      times.put(stock, new Times(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
      times.put(ours, new Times(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
      Map<Workloads.Shuffle, List<String>> prints = new LinkedHashMap<>();
      for (int round = 1; round <= runs; round++) {
        List<Workloads.Shuffle> order =
            round % 2 == 1 ? List.of(stock, ours) : List.of(ours, stock);
        for (Workloads.Shuffle s : order) {
          List<String> fp = new ArrayList<>();
          long t0 = System.nanoTime();
          Run t = runOnce(s, bytes, maps, memoryMb, fp);
          progress.record(mode + (s == stock ? " stock" : " ours"), (System.nanoTime() - t0) / 1e9);
          times.get(s).groupBy().add(t.groupBy());
          times.get(s).sortBy().add(t.sortBy());
          times.get(s).reduce().add(t.reduce());
          List<String> previous = prints.putIfAbsent(s, fp);
          allEqual &= previous == null || previous.equals(fp);
          progress.print(
              progress.status(
                  String.format(
                      Locale.ROOT,
                      "%s round %d of %d %-34s groupBy %6.1f s  sortBy %6.1f s",
                      mode,
                      round,
                      runs,
                      s.label,
                      t.groupBy(),
                      t.sortBy()),
                  System.nanoTime(),
                  0));
        }
      }
      boolean equal = prints.get(stock).equals(prints.get(ours));
      allEqual &= equal;
      report.append(table(mode, stock, ours, times, equal));
    }
    System.out.println();
    System.out.println(report);
    if (out != null) {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, report.toString(), StandardCharsets.UTF_8);
      System.out.println("wrote " + out);
    }
    return allEqual ? 0 : 1; // Cli.main exits
  }

  private static String table(
      String mode,
      Workloads.Shuffle stock,
      Workloads.Shuffle ours,
      Map<Workloads.Shuffle, Times> times,
      boolean equal) {
    StringBuilder sb = new StringBuilder();
    sb.append("## ")
        .append(mode)
        .append(": ")
        .append(stock.label)
        .append(" vs ")
        .append(ours.label)
        .append("\n\n");
    sb.append(
        "| job | stock median (s) | ours median (s) | ours / stock | stock runs | ours runs |\n");
    sb.append("| --- | --- | --- | --- | --- | --- |\n");
    for (String job : List.of("groupBy", "sortBy")) {
      List<Double> s =
          job.equals("groupBy") ? times.get(stock).groupBy() : times.get(stock).sortBy();
      List<Double> o = job.equals("groupBy") ? times.get(ours).groupBy() : times.get(ours).sortBy();
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %.1f | %.2f | %s | %s |%n",
              job,
              median(s),
              median(o),
              median(o) / median(s),
              list(s),
              list(o)));
    }
    sb.append("\nreduce tasks' shuffle fetch wait, share of their run time (all runs): stock ")
        .append(share(times.get(stock).reduce()))
        .append(", ours ")
        .append(share(times.get(ours).reduce()))
        .append("\n");
    sb.append("\nresults equal: ").append(equal ? "yes" : "NO").append("\n\n");
    return sb.toString();
  }

  private static String share(List<FetchWaitListener.ReduceTime> runs) {
    FetchWaitListener.ReduceTime all =
        runs.stream().reduce(FetchWaitListener.ReduceTime.ZERO, FetchWaitListener.ReduceTime::plus);
    return String.format(
        Locale.ROOT,
        "%.1f %% (%.1f s of %.1f s)",
        100.0 * all.fetchWaitMs() / Math.max(1, all.runMs()),
        all.fetchWaitMs() / 1e3,
        all.runMs() / 1e3);
  }

  private static Run runOnce(
      Workloads.Shuffle shuffle, long bytes, int maps, int memoryMb, List<String> fingerprint)
      throws Exception {
    SparkSession s =
        SparkSession.builder()
            .config(Workloads.conf("bench " + shuffle.label, shuffle, 2, memoryMb))
            .getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(s.sparkContext());
      Workloads.awaitExecutors(sc, 2);
      Workloads.groupBy(Workloads.records(sc, 16 << 20, 4, 1000, 96), 4); // warm up
      JavaPairRDD<Integer, byte[]> records = Workloads.records(sc, bytes, maps, 1_000_000, 96);
      FetchWaitListener reduce = new FetchWaitListener();
      s.sparkContext().addSparkListener(reduce);
      long t0 = System.nanoTime();
      fingerprint.addAll(Workloads.groupBy(records, maps));
      long t1 = System.nanoTime();
      fingerprint.addAll(Workloads.sortBy(records, maps));
      long t2 = System.nanoTime();
      s.sparkContext().listenerBus().waitUntilEmpty();
      return new Run((t1 - t0) / 1e9, (t2 - t1) / 1e9, reduce.stop());
    } finally {
      s.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
  }

  static double median(List<Double> v) {
    List<Double> c = new ArrayList<>(v);
    c.sort(null);
    int n = c.size();
    return n % 2 == 1 ? c.get(n / 2) : (c.get(n / 2 - 1) + c.get(n / 2)) / 2;
  }

  private static String list(List<Double> v) {
    StringBuilder sb = new StringBuilder();
    for (double d : v) {
      sb.append(sb.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", d));
    }
    return sb.toString();
  }

  static String machine() {
    String cpu = "unknown CPU";
    String mem = "unknown";
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          cpu = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
      for (String line : Files.readAllLines(Paths.get("/proc/meminfo"))) {
        if (line.startsWith("MemTotal")) {
          mem = line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // keep the defaults
    }
    return "machine: "
        + cpu
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " cores, "
        + mem
        + ", "
        + System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + ", Java "
        + System.getProperty("java.version")
        + ", Spark "
        + org.apache.spark.package$.MODULE$.SPARK_VERSION()
        + "\ndate: "
        + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)
        + "\n";
  }
}
