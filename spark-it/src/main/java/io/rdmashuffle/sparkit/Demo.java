/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Doctor;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.shuffle.rdma.SparkConfig;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bin/rdma-shuffle demo}: the same shuffle-heavy job (a groupByKey and a sortByKey of {@code
 * --bytes} of records) in a two-executor {@code local-cluster} on this machine, once with Spark's
 * stock sort shuffle and once with rdma-shuffle; checks the results are equal and prints both
 * times. Nothing to set up: the executors start from the build's Spark home.
 */
public final class Demo {
  private Demo() {}

  static final String USAGE =
      """
      usage: bin/rdma-shuffle demo [--bytes 512m]
        Runs the doctor, then the same shuffle-heavy job (a groupByKey and a sortByKey of --bytes
        of records) in a two-executor local-cluster on this machine, once with Spark's stock sort
        shuffle and once with rdma-shuffle; checks the results are equal and prints both times.
        Builds the plugin first when it isn't built (or with REBUILD=1).
      """;

  public static void main(String[] args) {
    Cli.main("demo", USAGE, args, Demo::run);
  }

  private static int run(Cli a) throws Exception {
    long bytes = a.option("bytes", 512L << 20, Cli::bytes);
    a.done();
    System.out.println("== doctor: which transport this node runs");
    Doctor.run(SparkConfig.SCHEMA, new String[0], System.out); // what it says, whatever it finds
    System.out.println("== the Spark demo");
    System.out.printf(
        Locale.ROOT,
        "== a groupByKey and a sortByKey of %d MiB of records,"
            + " local-cluster[2,1,1536] with Kryo%n",
        bytes >> 20);
    double[] stock = run(Workloads.Shuffle.STOCK, bytes);
    double[] ours = run(Workloads.Shuffle.RDMA, bytes);
    boolean same = fingerprints[0].equals(fingerprints[1]);
    System.out.printf(Locale.ROOT, "%-16s %10s %10s%n", "", "groupBy", "sortBy");
    System.out.printf(Locale.ROOT, "%-16s %9.1fs %9.1fs%n", "stock shuffle", stock[0], stock[1]);
    System.out.printf(Locale.ROOT, "%-16s %9.1fs %9.1fs%n", "rdma-shuffle", ours[0], ours[1]);
    System.out.printf(
        Locale.ROOT,
        "%-16s %9.2fx %9.2fx%n",
        "ours / stock",
        ours[0] / stock[0],
        ours[1] / stock[1]);
    System.out.println("results equal: " + (same ? "yes" : "NO"));
    System.out.println("(one run each, on a shared machine: see bench-spark for medians)");
    return same ? 0 : 1; // Cli.main exits
  }

  private static final List<?>[] fingerprints = new List<?>[2];

  private static double[] run(Workloads.Shuffle shuffle, long bytes) throws Exception {
    System.out.println("-- " + shuffle.label + ": starting the application");
    SparkSession s =
        SparkSession.builder()
            .config(Workloads.conf("demo " + shuffle.label, shuffle, 2, 1536))
            .getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(s.sparkContext());
      Workloads.awaitExecutors(sc, 2);
      Workloads.groupBy(Workloads.records(sc, 8 << 20, 4, 1000, 96), 4); // warm up the JVMs
      JavaPairRDD<Integer, byte[]> records = Workloads.records(sc, bytes, 8, 1_000_000, 96);
      long t0 = System.nanoTime();
      List<String> g = Workloads.groupBy(records, 8);
      long t1 = System.nanoTime();
      List<String> o = Workloads.sortBy(records, 8);
      long t2 = System.nanoTime();
      List<String> all = Workloads.copy(g);
      all.addAll(o);
      fingerprints[shuffle == Workloads.Shuffle.STOCK ? 0 : 1] = all;
      System.out.printf(
          Locale.ROOT, "   groupBy %.1f s, sortBy %.1f s%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9);
      return new double[] {(t1 - t0) / 1e9, (t2 - t1) / 1e9};
    } finally {
      s.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
  }
}
