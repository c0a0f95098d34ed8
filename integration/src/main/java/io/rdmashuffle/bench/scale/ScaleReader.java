/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.fetch.FetchOptions;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.spark.SparkTransportSecret;
import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A reading host of the scale test and benchmark: reduce tasks of one shuffle, read the way a Spark
 * executor's reduce tasks read (a {@link io.rdmashuffle.fetch.BlockFetcher} per task on one {@link
 * NodeRuntime} of this process, its pooled READ buffers, connections and fetch driver), with
 * nothing of Spark: the map outputs come from a {@link ScaleManifest}. A task reads {@code --width}
 * consecutive partitions of every map output that has blocks there; this process runs its share of
 * the tasks ({@code --share i/n}: every n-th from the i-th), {@code --slots} at once, and with
 * {@code --verify} compares every block with the map output's own files. Results: {@link
 * ReaderResults}, to {@code --out}.
 */
public final class ScaleReader {
  static final ConfigSchema SCHEMA = ConfigSchema.core("scale readers", "spark.shuffle.rdma.");

  static final String USAGE =
      """
      usage: ScaleReader --manifest FILE [--share I/N] [--slots 50] [--width 1] [--window 1m]
                         [--host ADDRESS] [--verify DIR[,DIR...]] [--out FILE] [--ready FILE
                         --go FILE] [--duration S --warmup S] [--progress]
                         [--set spark.shuffle.rdma.KEY=VALUE ...]
        Reads the map outputs a manifest lists as reduce tasks would: a task reads --width
        consecutive partitions of every map output with blocks there, through a block fetcher on
        this process's runtime; --share I/N takes every N-th task from the I-th; --slots tasks at
        once; --window is each task's bytes in flight. --verify compares every block with the
        map output's data and index files found below DIR. With --ready/--go, the runtime is up
        when READY is written, and reading starts once GO exists. With --duration, tasks run
        over and over for that long (a benchmark) and the lines "MARK start" after --warmup and
        "MARK end" give the counters of the measured window. Exit status 1 when a task failed
        or a block differed.
      """;

  private ScaleReader() {}

  public static void main(String[] args) {
    Cli.main("scale reader", USAGE, args, ScaleReader::run);
  }

  /** What one reading process is asked to do. */
  record Plan(
      ScaleManifest manifest,
      int share,
      int of,
      int slots,
      int width,
      long window,
      String host,
      List<Path> verify,
      Path out,
      Path ready,
      Path go,
      double duration,
      double warmup,
      boolean progress,
      Map<String, String> settings) {}

  private static int run(Cli a) throws Exception {
    Path manifest = a.option("manifest", null, Paths::get);
    String share = a.option("share", "0/1");
    int slots = a.intOption("slots", 50);
    int width = a.intOption("width", 1);
    long window = a.option("window", 1L << 20, Cli::bytes);
    String host = a.option("host", null);
    String verify = a.option("verify", null);
    Path out = a.option("out", null, Paths::get);
    Path ready = a.option("ready", null, Paths::get);
    Path go = a.option("go", null, Paths::get);
    double duration = a.option("duration", 0.0, Double::parseDouble);
    double warmup = a.option("warmup", 0.0, Double::parseDouble);
    boolean progress = a.flag("progress");
    Map<String, String> settings = new LinkedHashMap<>();
    for (String kv : a.all("set")) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new Cli.UsageError("--set " + kv + ": not KEY=VALUE");
      }
      settings.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    a.done();
    if (manifest == null) {
      throw new Cli.UsageError("missing --manifest");
    }
    String[] sh = share.split("/");
    int i = Cli.parse("--share", sh[0], Integer::parseInt);
    int n = sh.length == 2 ? Cli.parse("--share", sh[1], Integer::parseInt) : -1;
    if (sh.length != 2 || n < 1 || i < 0 || i >= n) {
      throw new Cli.UsageError("--share " + share + ": I/N with 0 <= I < N");
    }
    if (slots < 1 || width < 1 || window < 4096) {
      throw new Cli.UsageError("--slots and --width at least 1, --window at least 4k");
    }
    if (duration < 0 || warmup < 0 || (duration > 0 && warmup >= duration)) {
      throw new Cli.UsageError("--warmup must be shorter than --duration");
    }
    if ((ready == null) != (go == null)) {
      throw new Cli.UsageError("--ready and --go go together");
    }
    List<Path> dirs = new ArrayList<>();
    if (verify != null) {
      for (String d : verify.split(",")) {
        dirs.add(Path.of(d));
      }
    }
    Plan p =
        new Plan(
            ScaleManifest.read(manifest),
            i,
            n,
            slots,
            width,
            window,
            host == null ? InetAddress.getLocalHost().getHostAddress() : host,
            dirs,
            out,
            ready,
            go,
            duration,
            warmup,
            progress,
            settings);
    ReaderResults r = read(p);
    System.out.println(r.summary());
    if (out != null) {
      r.write(out);
    }
    return r.failedTasks() == 0 && r.mismatches() == 0 ? 0 : 1;
  }

  /** Runs the plan's tasks; the process's runtime lives as long as this call. */
  static ReaderResults read(Plan p) throws Exception {
    ScaleManifest m = p.manifest();
    Map<String, String> settings = new LinkedHashMap<>();
    // the pool holds every task's window twice, as an executor's does (SparkSettings.forExecutor)
    settings.put(
        "spark.shuffle.rdma.buffers.maxBytes",
        Long.toString(Math.max(16L << 20, 2L * p.slots() * p.window())));
    settings.putAll(p.settings());
    RdmaConf conf = RdmaConf.of(SCHEMA, settings);
    ExpectedBlocks expected =
        p.verify().isEmpty() ? null : ExpectedBlocks.find(m.shuffle(), p.verify());
    if (expected != null && expected.size() < m.outputs().size()) {
      throw new IllegalStateException(
          "--verify: found "
              + expected.size()
              + " data files of shuffle "
              + m.shuffle()
              + " below "
              + p.verify()
              + ", the manifest lists "
              + m.outputs().size());
    }
    try (NodeRuntime runtime =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(conf)
                .defaultHost(p.host())
                .secrets(
                    ApplicationSecrets.of(
                        m.application(),
                        SparkTransportSecret.derive(m.application(), m.sparkSecret())))
                .reading(true))) {
      FetchOptions options =
          new FetchOptions(
              p.window(),
              Integer.MAX_VALUE,
              (int) Math.min(8L << 20, p.window()),
              false,
              true,
              conf.get(RdmaShuffleConfig.READ_TIMEOUT).toMillis(),
              3,
              5_000);
      ReaderTasks tasks = new ReaderTasks(m, p, runtime, options, expected);
      if (p.ready() != null) {
        Files.writeString(p.ready(), tasks.size() + " tasks\n");
        long until = System.currentTimeMillis() + 3_600_000;
        while (!Files.exists(p.go())) {
          if (System.currentTimeMillis() > until) {
            throw new IllegalStateException("no " + p.go() + " within an hour");
          }
          Thread.sleep(50);
        }
      }
      return tasks.run();
    }
  }
}
