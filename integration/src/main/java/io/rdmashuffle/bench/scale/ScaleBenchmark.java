/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import io.rdmashuffle.bench.Machine;
import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Progress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/rdma-shuffle bench scale}: what one serving process does for many readers and many map
 * outputs. For every count of outputs per server and of concurrent readers, a serving JVM ({@link
 * ScaleServer}: the serving side an executor runs, its bounds derived from its limits) serves that
 * many outputs, and a reading JVM ({@link ScaleReader}) runs that many reduce tasks at once, over
 * and over, each reading one partition of every output; after a warm-up the counters of both and
 * the serving JVM's CPU ({@code /proc/PID/stat}, every thread) are taken at the start and the end
 * of the measured window. Reported per configuration: locate calls and map outputs located per
 * second, registrations per output, READs and bytes per second, the serving process's CPU (cores,
 * and microseconds per READ), its descriptors, mappings and resident size, busy answers and
 * failures.
 */
public final class ScaleBenchmark {
  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench scale [--readers 1,8,64,256] [--outputs 100,1000,10000]
                                          [--partitions 256] [--block-bytes 4k] [--window 256k]
                                          [--duration 25] [--warmup 5] [--out FILE]
        What one serving process does for many readers and map outputs: for every count of
        outputs per server and of concurrent readers, a serving JVM serves that many outputs
        (sparse files of --partitions blocks of --block-bytes, made once under
        integration/target/bench-scale) and a reading JVM runs that many reduce tasks at once,
        each reading one partition of every output, over and over for --duration seconds (the
        first --warmup not measured). Prints, and writes to --out (default
        integration/results/scale-DATE.md): locates/s, registrations per output, READs/s and
        the serving process's CPU, per configuration.
      """;

  private ScaleBenchmark() {}

  public static void main(String[] args) {
    Cli.main("bench scale", USAGE, args, ScaleBenchmark::run);
  }

  /** What to run. */
  record Options(
      List<Integer> readers,
      List<Integer> outputs,
      int partitions,
      int blockBytes,
      long window,
      double duration,
      double warmup,
      Path out,
      Path work) {}

  private static int run(Cli a) throws Exception {
    List<Integer> readers = a.option("readers", List.of(1, 8, 64, 256), ScaleBenchmark::ints);
    List<Integer> outputs = a.option("outputs", List.of(100, 1000, 10000), ScaleBenchmark::ints);
    int partitions = a.intOption("partitions", 256);
    long blockBytes = a.option("block-bytes", 4096L, Cli::bytes);
    long window = a.option("window", 256L << 10, Cli::bytes);
    double duration = a.option("duration", 25.0, Double::parseDouble);
    double warmup = a.option("warmup", 5.0, Double::parseDouble);
    Path out =
        a.option(
            "out",
            Paths.get(
                "integration/results",
                "scale-"
                    + java.time.LocalDateTime.now()
                        .format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmm"))
                    + ".md"),
            Paths::get);
    a.done();
    if (partitions < 1 || blockBytes < 1 || blockBytes > 1 << 30 || window < 4096) {
      throw new Cli.UsageError("--partitions, --block-bytes and --window must be positive");
    }
    if (warmup < 0 || duration <= warmup) {
      throw new Cli.UsageError("--warmup must be shorter than --duration");
    }
    for (int r : readers) {
      if (r < 1 || r > partitions) {
        throw new Cli.UsageError("--readers " + r + ": 1 to --partitions (" + partitions + ")");
      }
    }
    Options o =
        new Options(
            readers,
            outputs,
            partitions,
            (int) blockBytes,
            window,
            duration,
            warmup,
            out,
            Paths.get("integration/target/bench-scale"));
    List<String> keys = new ArrayList<>();
    for (int n : outputs) {
      for (int r : readers) {
        keys.add(n + "x" + r);
      }
    }
    Progress progress = Progress.onStderr(keys);
    List<ScaleRow> rows = new ArrayList<>();
    for (int n : outputs) {
      long g0 = System.nanoTime();
      Path dir = ScaleOutputs.ensure(o.work(), n, partitions, o.blockBytes());
      double made = (System.nanoTime() - g0) / 1e9;
      if (made > 1) {
        progress.print(String.format(Locale.ROOT, "made %d outputs in %.0f s", n, made));
      }
      for (int r : readers) {
        long t0 = System.nanoTime();
        ScaleRow row = configuration(o, dir, n, r);
        rows.add(row);
        progress.step(n + "x" + r, (System.nanoTime() - t0) / 1e9, row.brief());
      }
    }
    progress.finish();
    String report = ScaleRow.report(Machine.describe(), commandLine(o), rows);
    System.out.print(report);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, report);
    System.out.println("\nwritten to " + out);
    return rows.stream().allMatch(ScaleRow::clean) ? 0 : 1;
  }

  private static List<Integer> ints(String text) {
    List<Integer> l = new ArrayList<>();
    for (String s : text.split(",")) {
      int v = Integer.parseInt(s.trim());
      if (v < 1) {
        throw new IllegalArgumentException("must be positive");
      }
      l.add(v);
    }
    return l;
  }

  private static String commandLine(Options o) {
    return String.format(
        Locale.ROOT,
        "bin/rdma-shuffle bench scale --readers %s --outputs %s --partitions %d --block-bytes %d"
            + " --window %d --duration %s --warmup %s",
        join(o.readers()),
        join(o.outputs()),
        o.partitions(),
        o.blockBytes(),
        o.window(),
        o.duration(),
        o.warmup());
  }

  private static String join(List<Integer> l) {
    return String.join(",", l.stream().map(String::valueOf).toList());
  }

  /** One serving JVM and one reading JVM: {@code outputs} outputs, {@code readers} at once. */
  private static ScaleRow configuration(Options o, Path dir, int outputs, int readers)
      throws Exception {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    String cp = System.getProperty("java.class.path");
    String log4j = System.getProperty("log4j2.configurationFile", "");
    Path manifest = dir.resolve("manifest.txt");
    Path results = dir.resolve("reader-" + readers + ".properties");
    Files.deleteIfExists(results);
    List<String> server =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx1g",
                "-XX:+UseSerialGC",
                "--add-exports",
                "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Dlog4j2.configurationFile=" + log4j,
                "-cp",
                cp,
                ScaleServer.class.getName(),
                dir.toString(),
                Integer.toString(outputs),
                Integer.toString(o.partitions()),
                "127.0.0.1",
                manifest.toString(),
                "spark.shuffle.rdma.transport=tcp"));
    Process s = new ProcessBuilder(server).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    Process r = null;
    try {
      BufferedReader fromServer =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      OutputStream toServer = s.getOutputStream();
      Map<String, String> ready = fields(line(fromServer, "READY"));
      long pid = Long.parseLong(ready.get("pid"));
      long pool = Math.max(64L << 20, 2L * readers * o.window());
      List<String> reader =
          new ArrayList<>(
              List.of(
                  java,
                  "-Xmx1g",
                  "-XX:MaxDirectMemorySize=" + (pool + (64L << 20)),
                  "-XX:+UseSerialGC",
                  "--add-exports",
                  "java.base/sun.nio.ch=ALL-UNNAMED",
                  "-Dlog4j2.configurationFile=" + log4j,
                  "-cp",
                  cp,
                  ScaleReader.class.getName(),
                  "--manifest",
                  manifest.toString(),
                  "--slots",
                  Integer.toString(readers),
                  "--window",
                  Long.toString(o.window()),
                  "--host",
                  "127.0.0.1",
                  "--duration",
                  Double.toString(o.duration()),
                  "--warmup",
                  Double.toString(o.warmup()),
                  "--out",
                  results.toString(),
                  "--set",
                  "spark.shuffle.rdma.transport=tcp"));
      r = new ProcessBuilder(reader).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      BufferedReader fromReader =
          new BufferedReader(new InputStreamReader(r.getInputStream(), StandardCharsets.UTF_8));
      Map<String, String> readStart = fields(line(fromReader, "MARK start"));
      Map<String, String> serveStart = fields(stats(fromServer, toServer));
      ProcessFootprint before = ProcessFootprint.of(pid);
      ProcessFootprint.Sampler sampler = new ProcessFootprint.Sampler(pid, 1000);
      Map<String, String> readEnd;
      Map<String, String> serveEnd;
      ProcessFootprint after;
      try {
        readEnd = fields(line(fromReader, "MARK end"));
        serveEnd = fields(stats(fromServer, toServer));
        after = ProcessFootprint.of(pid);
      } finally {
        sampler.close();
      }
      if (!r.waitFor(300, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the reading JVM did not end after its run");
      }
      ReaderResults rr = ReaderResults.read(results);
      return ScaleRow.of(
          outputs,
          readers,
          Integer.parseInt(ready.get("maxOpenOutputs")),
          readStart,
          readEnd,
          serveStart,
          serveEnd,
          before,
          after,
          sampler.peak(),
          rr);
    } finally {
      if (r != null) {
        r.destroyForcibly();
      }
      s.getOutputStream().close();
      if (!s.waitFor(30, TimeUnit.SECONDS)) {
        s.destroyForcibly();
      }
    }
  }

  private static String stats(BufferedReader from, OutputStream to) throws IOException {
    to.write("stats\n".getBytes(StandardCharsets.UTF_8));
    to.flush();
    return line(from, "STATS");
  }

  /** The next line that starts with {@code prefix}; others are passed through. */
  private static String line(BufferedReader in, String prefix) throws IOException {
    String l;
    while ((l = in.readLine()) != null) {
      if (l.startsWith(prefix)) {
        return l;
      }
      System.err.println(l);
    }
    throw new IOException("the process ended before it printed " + prefix);
  }

  /** {@code key=value} fields of a line. */
  static Map<String, String> fields(String line) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String f : line.split(" ")) {
      int eq = f.indexOf('=');
      if (eq > 0) {
        m.put(f.substring(0, eq), f.substring(eq + 1));
      }
    }
    return m;
  }
}
