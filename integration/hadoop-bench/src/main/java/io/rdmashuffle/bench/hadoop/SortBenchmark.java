/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.hadoop;

import io.rdmashuffle.hadoop.reduce.RdmaShuffleCounter;
import io.rdmashuffle.hadoop.testing.RdmaMiniCluster;
import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Progress;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.terasort.TeraGen;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.jobhistory.JobHistoryParser;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.util.ToolRunner;

/**
 * A TeraSort of about 1-2 GB on a MiniMRYarnCluster of two NodeManagers running rdma-shuffle's
 * service: the stock shuffle (Hadoop's Fetcher over the service's HTTP side, which is the stock
 * ShuffleHandler's code) against ours, alternating runs, medians. Reports the job time and the
 * reduce tasks' shuffle phase (attempt start to shuffle finish, from the job history), checks every
 * run sorted the same bytes, and writes the results with the machine they ran on. Not a test:
 * {@code integration/bin/bench-hadoop-sort} runs it, on Hadoop's class path only.
 *
 * <p>{@code bin/rdma-shuffle bench hadoop-sort}; its arguments: {@link #USAGE}.
 *
 * <p>By default reducers start when every map is done ({@code --slowstart 1.0}), so the reduce
 * shuffle phase measures fetching and merging, not waiting for maps.
 */
public final class SortBenchmark {
  private long bytes = 1536L << 20;
  private int rounds = 3;
  private int reducers = 4;
  private long split = 256L << 20;
  private float slowstart = 1.0f;
  private String out;

  /** One measured run. */
  record Run(
      boolean ours,
      int round,
      double jobSeconds,
      double shuffleAvg,
      double shuffleMax,
      long shuffledBytes,
      long mapsRead,
      long fallbacks,
      long crc) {}

  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench hadoop-sort [--bytes 1536m] [--rounds 3] [--reducers 4]
                 [--split 256m] [--slowstart 1.0] [--out FILE]
        A Hadoop MapReduce TeraSort on a MiniMRYarnCluster of two NodeManagers, on Hadoop's class
        path only: the stock shuffle against ours, alternating runs, medians of the job time and
        the reduce tasks' shuffle phase. Results in integration/results/hadoop-sort-DATE.md (or
        --out).
      """;

  public static void main(String[] args) {
    Cli.main("bench hadoop-sort", USAGE, args, SortBenchmark::main);
  }

  private static int main(Cli a) throws Exception {
    SortBenchmark b = new SortBenchmark();
    b.bytes = a.option("bytes", b.bytes, Cli::bytes);
    b.rounds = a.intOption("rounds", b.rounds);
    b.reducers = a.intOption("reducers", b.reducers);
    b.split = a.option("split", b.split, Cli::bytes);
    b.slowstart = a.option("slowstart", b.slowstart, Float::parseFloat);
    b.out = a.option("out", b.out);
    a.done();
    b.run();
    return 0;
  }

  private void run() throws Exception {
    String load0 = loadAverage();
    List<Run> runs = new ArrayList<>();
    try (RdmaMiniCluster cluster =
        RdmaMiniCluster.start(
            "SortBenchmark",
            2,
            "yarn.nodemanager.resource.memory-mb",
            "6144",
            "yarn.nodemanager.resource.cpu-vcores",
            "4")) {
      Path gen = cluster.path("teragen-" + bytes);
      long rows = bytes / 100;
      if (!cluster.fs().exists(gen)) {
        log("generating " + rows + " rows of 100 bytes");
        check(
            ToolRunner.run(
                conf(cluster, false),
                new TeraGen(),
                new String[] {
                  "-D" + MRJobConfig.NUM_MAPS + "=4", Long.toString(rows), gen.toString()
                }));
      }
      List<String> steps = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        steps.addAll(round % 2 == 0 ? List.of("stock", "ours") : List.of("ours", "stock"));
      }
      // a line per run: each is a result worth keeping on the screen
      Progress progress = new Progress(steps, System.err, false, System.nanoTime());
      for (int round = 0; round < rounds; round++) {
        // alternate which goes first, so neither always runs on a warmer page cache
        boolean[] order =
            round % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false};
        for (boolean ours : order) {
          long t0 = System.nanoTime();
          Run r = sort(cluster, gen, ours, round);
          runs.add(r);
          progress.record(ours ? "ours" : "stock", (System.nanoTime() - t0) / 1e9);
          log(progress.status(describe(r), System.nanoTime(), 0));
        }
      }
    }
    String report = report(runs, load0, loadAverage());
    System.out.print(report);
    if (out != null) {
      Files.createDirectories(Paths.get(out).toAbsolutePath().getParent());
      Files.writeString(Paths.get(out), report, StandardCharsets.UTF_8);
    }
  }

  private Configuration conf(RdmaMiniCluster cluster, boolean ours) {
    Configuration c = cluster.jobConf(ours);
    String jvm = " -XX:+UseParallelGC " + RdmaMiniCluster.JAVA17_OPENS;
    c.setInt(MRJobConfig.MAP_MEMORY_MB, 1024);
    c.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx768m" + jvm);
    c.setInt(MRJobConfig.IO_SORT_MB, 256);
    c.setInt(MRJobConfig.REDUCE_MEMORY_MB, 1536);
    c.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx1152m" + jvm);
    c.setInt(MRJobConfig.MR_AM_VMEM_MB, 768);
    c.set(MRJobConfig.MR_AM_COMMAND_OPTS, "-Xmx512m" + jvm);
    c.setLong(FileInputFormat.SPLIT_MINSIZE, split);
    c.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
    c.setBoolean(MRJobConfig.REDUCE_SPECULATIVE, false);
    c.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, slowstart);
    // total order by key prefix ranges, without the sampled partition file (which tasks can't
    // find when the default file system is the local one)
    c.setBoolean("mapreduce.terasort.simplepartitioner", true);
    return c;
  }

  private Run sort(RdmaMiniCluster cluster, Path in, boolean ours, int round) throws Exception {
    Path outDir = cluster.path("terasort-" + (ours ? "ours" : "stock"));
    cluster.fs().delete(outDir, true);
    long t0 = System.nanoTime();
    check(
        ToolRunner.run(
            conf(cluster, ours),
            new TeraSort(),
            new String[] {
              "-D" + MRJobConfig.NUM_REDUCES + "=" + reducers, in.toString(), outDir.toString()
            }));
    double seconds = (System.nanoTime() - t0) / 1e9;
    Job job = cluster.lastJob("TeraSort");
    Counters c = job.getCounters();
    double[] shuffle = shuffleSeconds(cluster, job);
    long crc = crc(cluster.fs(), outDir);
    cluster.fs().delete(outDir, true);
    return new Run(
        ours,
        round,
        seconds,
        shuffle[0],
        shuffle[1],
        c.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue(),
        c.findCounter(RdmaShuffleCounter.MAPS_READ).getValue(),
        c.findCounter(RdmaShuffleCounter.FALLBACK_FETCHES).getValue(),
        crc);
  }

  /** Average and longest reduce shuffle phase, from the job history. */
  private static double[] shuffleSeconds(RdmaMiniCluster cluster, Job job)
      throws IOException, InterruptedException {
    String file = job.getHistoryUrl();
    for (int i = 0; i < 100 && (file == null || file.isEmpty()); i++) {
      sleep(100);
      file = job.getHistoryUrl();
    }
    Path history = new Path(file);
    FileSystem fs = history.getFileSystem(cluster.yarn().getConfig());
    for (int i = 0; i < 100 && !fs.exists(history); i++) {
      sleep(100);
    }
    JobHistoryParser.JobInfo info = new JobHistoryParser(fs, history).parse();
    double sum = 0;
    double max = 0;
    int n = 0;
    for (JobHistoryParser.TaskInfo t : info.getAllTasks().values()) {
      if (t.getTaskType() != TaskType.REDUCE) {
        continue;
      }
      JobHistoryParser.TaskAttemptInfo a = t.getAllTaskAttempts().get(t.getSuccessfulAttemptId());
      double s = (a.getShuffleFinishTime() - a.getStartTime()) / 1e3;
      sum += s;
      max = Math.max(max, s);
      n++;
    }
    return new double[] {n == 0 ? Double.NaN : sum / n, max};
  }

  private static long crc(FileSystem fs, Path dir) throws IOException {
    FileStatus[] parts = fs.listStatus(dir, p -> p.getName().startsWith("part-"));
    Arrays.sort(parts);
    CRC32 crc = new CRC32();
    byte[] buf = new byte[1 << 20];
    for (FileStatus s : parts) {
      try (InputStream in = fs.open(s.getPath())) {
        int n;
        while ((n = in.read(buf)) > 0) {
          crc.update(buf, 0, n);
        }
      }
    }
    return crc.getValue();
  }

  private String report(List<Run> runs, String load0, String load1) {
    StringBuilder sb = new StringBuilder();
    sb.append("# Hadoop MapReduce TeraSort: stock shuffle vs rdma-shuffle (tcp transport)\n\n");
    sb.append("date: ").append(Instant.now()).append('\n');
    sb.append("machine: ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores, ")
        .append(memory())
        .append(", ")
        .append(System.getProperty("os.name"))
        .append(' ')
        .append(System.getProperty("os.version"))
        .append(", Java ")
        .append(System.getProperty("java.version"))
        .append('\n');
    sb.append("load average before: ").append(load0).append("; after: ").append(load1).append('\n');
    sb.append("cluster: MiniMRYarnCluster, 2 NodeManagers in one JVM, tasks in their own JVMs\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "job: TeraSort of %d MiB (TeraGen), %d reducers, splits >= %d MiB, map -Xmx768m"
                + " io.sort.mb=256, reduce -Xmx1152m, reduce slowstart %.2f; %d rounds, alternating"
                + " which goes first%n%n",
            bytes >> 20,
            reducers,
            split >> 20,
            slowstart,
            rounds));
    sb.append(
        "| run | shuffle | round | job s | reduce shuffle avg s | max s | shuffled MiB | maps READ | fallbacks | output crc |\n");
    sb.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int i = 0;
    for (Run r : runs) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %d | %.1f | %.1f | %.1f | %d | %d | %d | %08x |%n",
              ++i,
              r.ours() ? "ours" : "stock",
              r.round(),
              r.jobSeconds(),
              r.shuffleAvg(),
              r.shuffleMax(),
              r.shuffledBytes() >> 20,
              r.mapsRead(),
              r.fallbacks(),
              r.crc()));
    }
    double jobStock = median(runs, false, Run::jobSeconds);
    double jobOurs = median(runs, true, Run::jobSeconds);
    double shStock = median(runs, false, Run::shuffleAvg);
    double shOurs = median(runs, true, Run::shuffleAvg);
    boolean same = runs.stream().map(Run::crc).distinct().count() == 1;
    sb.append(
        String.format(
            Locale.ROOT,
            "%nmedians: job stock %.1f s, ours %.1f s, ratio ours/stock %.3f%n"
                + "         reduce shuffle phase stock %.1f s, ours %.1f s, ratio ours/stock %.3f%n"
                + "outputs: %s%n",
            jobStock,
            jobOurs,
            jobOurs / jobStock,
            shStock,
            shOurs,
            shOurs / shStock,
            same ? "every run sorted to the same bytes" : "OUTPUTS DIFFER"));
    return sb.toString();
  }

  private static double median(
      List<Run> runs, boolean ours, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().filter(r -> r.ours() == ours).mapToDouble(f).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static String describe(Run r) {
    return String.format(
        Locale.ROOT,
        "%s round %d: job %.1f s, reduce shuffle avg %.1f s max %.1f s",
        r.ours() ? "ours" : "stock",
        r.round(),
        r.jobSeconds(),
        r.shuffleAvg(),
        r.shuffleMax());
  }

  private static String memory() {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return (os.getTotalMemorySize() >> 30) + " GiB";
  }

  private static String loadAverage() {
    try {
      return Files.readString(Paths.get("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static void check(int rc) {
    if (rc != 0) {
      throw new IllegalStateException("job failed, exit code " + rc);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void log(String s) {
    PrintStream o = System.err;
    o.println("[bench] " + s);
  }
}
