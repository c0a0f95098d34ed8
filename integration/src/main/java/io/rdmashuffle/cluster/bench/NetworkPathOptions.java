/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.cluster.net.Rate;
import io.rdmashuffle.tools.Cli;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The network-path benchmark's options.
 *
 * @param hosts hosts of the cluster, one Spark Worker and one executor each
 * @param rates link settings in order: a rate per host link, or null for none
 * @param rounds rounds per setting; each runs both sides, alternating which goes first
 * @param bytes bytes the map tasks generate and shuffle
 * @param recordBytes size of one record
 * @param maps map tasks
 * @param reduces reduce tasks
 * @param compress compressible records, shuffled compressed (Spark's default codec); else random
 *     ones, uncompressed
 * @param warmUpBytes bytes of a shuffle each application runs first, in the same executors and not
 *     measured (0: none): the measured one then meets warm executors, as the second shuffle of a
 *     long-lived application does
 * @param timeoutSeconds one application at most
 * @param waitClusterSeconds how long to wait while another harness cluster runs here
 * @param stockConf Spark settings of the stock side's applications only, in order
 * @param oursConf Spark settings of our side's applications only, in order
 * @param out the markdown result file
 */
record NetworkPathOptions(
    int hosts,
    List<Rate> rates,
    int rounds,
    long bytes,
    int recordBytes,
    int maps,
    int reduces,
    boolean compress,
    long warmUpBytes,
    long timeoutSeconds,
    long waitClusterSeconds,
    Map<String, String> stockConf,
    Map<String, String> oursConf,
    Path out) {

  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench network-path [--hosts 2] [--rates 150mbit,none] [--rounds 5]
                 [--bytes 768m] [--record 32k] [--maps 8] [--reduces 8] [--compress]
                 [--warm-up 0] [--stock-conf K=V]... [--ours-conf K=V]...
                 [--timeout 300] [--wait-cluster 1200] [--out FILE]
        The stock shuffle against our tcp transport on the cluster harness (hosts as network
        namespaces, one Spark executor per host), once per link setting (a tbf rate per host
        link, or none), rounds alternating which side starts: job and reduce-stage time,
        fetch-wait share, serving threads' CPU per GB served. --compress: records that compress
        (words of a small vocabulary), shuffled with spark.shuffle.compress=true (lz4); without
        it random records, uncompressed. --warm-up: bytes of an unmeasured shuffle each
        application runs first in the same executors (the measured one then meets warm JVMs and
        buffer pools, as a long-lived application's later shuffles do). --stock-conf,
        --ours-conf: a Spark setting for one side's applications only (repeatable). Needs root.
        --timeout: one application at most (s); --wait-cluster: how long to wait while another
        harness cluster runs here (s). Results in integration/results/network-path-DATE.md (or
        --out).
      """;

  static NetworkPathOptions parse(String... args) {
    return read(Cli.of(args));
  }

  /** The options of a command line; a {@link Cli.UsageError} names what is wrong. */
  static NetworkPathOptions read(Cli a) {
    int hosts = a.intOption("hosts", 2);
    List<Rate> rates = a.option("rates", rates("150mbit,none"), NetworkPathOptions::rates);
    int rounds = a.intOption("rounds", 5);
    long bytes = a.option("bytes", size("768m"), NetworkPathOptions::size);
    int record = a.option("record", 32 << 10, v -> Math.toIntExact(size(v)));
    int maps = a.intOption("maps", 8);
    int reduces = a.intOption("reduces", 8);
    boolean compress = a.flag("compress");
    long warmUp = a.option("warm-up", 0L, NetworkPathOptions::size);
    long timeout = a.option("timeout", 300L, Long::parseLong);
    long waitCluster = a.option("wait-cluster", 1200L, Long::parseLong);
    Map<String, String> stockConf = settings("stock-conf", a.all("stock-conf"));
    Map<String, String> oursConf = settings("ours-conf", a.all("ours-conf"));
    Path out =
        a.option(
            "out",
            Path.of("integration/results/network-path-" + LocalDate.now() + ".md"),
            Path::of);
    a.done();
    if (hosts < 2
        || rounds < 1
        || maps < 1
        || reduces < 1
        || record < 8
        || NetworkPathApp.RandomRecords.perTask(bytes, maps, record) < 1
        || warmUp < 0
        || (warmUp > 0 && NetworkPathApp.RandomRecords.perTask(warmUp, maps, record) < 1)) {
      throw new Cli.UsageError(
          "need at least 2 hosts, 1 round, 1 map and reduce task"
              + " and one record of at least 8 bytes per map task (in a warm-up too)");
    }
    return new NetworkPathOptions(
        hosts,
        rates,
        rounds,
        bytes,
        record,
        maps,
        reduces,
        compress,
        warmUp,
        timeout,
        waitCluster,
        stockConf,
        oursConf,
        out);
  }

  /** {@code K=V} values of {@code --name}, in order; a later value of a key wins. */
  static Map<String, String> settings(String name, List<String> values) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String v : values) {
      int eq = v.indexOf('=');
      if (eq < 1 || !v.startsWith("spark.")) {
        throw new Cli.UsageError("--" + name + " " + v + ": a Spark setting, spark.KEY=VALUE");
      }
      m.put(v.substring(0, eq), v.substring(eq + 1));
    }
    return Collections.unmodifiableMap(m);
  }

  /** The settings of one side's applications only ({@code stock} or {@code ours}). */
  Map<String, String> sideConf(String side) {
    return side.equals("ours") ? oursConf : stockConf;
  }

  /** {@code 300mbit,none}: {@code none} is an unlimited link. */
  static List<Rate> rates(String list) {
    List<Rate> r = new ArrayList<>();
    for (String s : list.split(",")) {
      r.add(s.trim().equalsIgnoreCase("none") ? null : Rate.parse(s));
    }
    return r;
  }

  /** {@code 768m}, {@code 32k}, {@code 1g} (binary units) or a plain number of bytes. */
  static long size(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit =
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
          case 'k' -> 1L << 10;
          case 'm' -> 1L << 20;
          case 'g' -> 1L << 30;
          default -> 1;
        };
    String n = unit == 1 ? t : t.substring(0, t.length() - 1);
    if (!n.matches("\\d+")) {
      throw new IllegalArgumentException("size=" + text + ": a number and k, m or g");
    }
    return Math.multiplyExact(Long.parseLong(n), unit);
  }

  /** The records each map task generates. */
  long recordsPerMap() {
    return NetworkPathApp.RandomRecords.perTask(bytes, maps, recordBytes);
  }

  /** The bytes actually shuffled (whole records). */
  long shuffledBytes() {
    return recordsPerMap() * maps * recordBytes;
  }

  static String label(Rate r) {
    return r == null ? "not rate-limited" : r + " per host link";
  }
}
