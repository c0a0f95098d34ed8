/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.cluster.spark.SparkApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spark standalone across three hosts: a Master and a Worker per host, one executor per Worker. The
 * same application ({@code CrossHostShuffleApp}: groupByKey, reduceByKey, sortByKey, join) runs on
 * the stock shuffle and on rdma-shuffle with the {@code tcp} transport; the results are equal, the
 * executors ran on three different hosts, and our READs crossed hosts: every executor's {@code
 * rdmaShuffle} metrics source (written by Spark's CSV sink) counts blocks read remotely and READs
 * served, and no fallback.
 */
@Timeout(900)
class SparkStandaloneClusterIT {
  static final String APP = "io.rdmashuffle.cluster.apps.CrossHostShuffleApp";
  static Cluster cluster;

  @BeforeAll
  static void start() {
    ClusterTesting.assumeRoot();
    cluster =
        Cluster.start(
            ClusterSpec.builder("spark-standalone-it").hosts(3).spark().workers(2, "1g").build(),
            ClusterTesting.paths());
    System.out.println("daemon memory after start: " + ClusterTesting.memory(cluster));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static SparkApplication app(String name, Path out) throws IOException {
    return app(name, APP, out);
  }

  private static SparkApplication app(String name, String mainClass, Path out) throws IOException {
    return ClusterTesting.withExecutorMetrics(
            cluster.spark().application(name, mainClass), out.resolve("metrics"))
        .conf("spark.executor.memory", "512m")
        .conf("spark.ui.enabled", "false")
        .args(out.toString(), Integer.toString(cluster.hosts().size()));
  }

  @Test
  void ourShuffleAcrossThreeHostsReturnsTheStockResultsAndReadsAcrossHosts() throws Exception {
    Path stockOut = cluster.shared().resolve("spark-stock");
    Path oursOut = cluster.shared().resolve("spark-ours");
    SparkApplication.Outcome stock = app("spark-stock", stockOut).run(600);
    assertTrue(stock.ok(), "the stock application failed: " + stock.tail());
    SparkApplication.Outcome ours =
        app("spark-ours", oursOut)
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            .run(600);
    assertTrue(ours.ok(), "the rdma-shuffle application failed: " + ours.tail());
    System.out.printf(
        "application times: stock %.1f s, ours %.1f s%n", stock.seconds(), ours.seconds());

    List<String> expected = Files.readAllLines(stockOut.resolve("results.txt"));
    assertTrue(expected.size() > 100_000, "the stock run returned " + expected.size() + " rows");
    assertEquals(
        expected,
        Files.readAllLines(oursOut.resolve("results.txt")),
        "results differ from the stock shuffle's");

    Set<String> hostAddresses =
        cluster.hosts().stream().map(Host::address).collect(Collectors.toCollection(TreeSet::new));
    for (Path out : List.of(stockOut, oursOut)) {
      Map<String, String> executors = executors(out);
      assertEquals(3, executors.size(), out + ": " + executors);
      assertEquals(
          hostAddresses,
          new TreeSet<>(executors.values()),
          out + ": executors not one per host: " + executors);
      List<String[]> tasks =
          Files.readAllLines(out.resolve("tasks.tsv")).stream().map(l -> l.split("\t")).toList();
      assertTrue(
          tasks.stream().anyMatch(t -> Long.parseLong(t[3]) > 0),
          out + ": no reduce task fetched a block from another executor");
    }

    Map<String, Map<String, Long>> m = ClusterTesting.executorMetrics(oursOut.resolve("metrics"));
    System.out.println("rdmaShuffle per executor: " + m);
    assertEquals(3, m.size(), "executors with an rdmaShuffle source: " + m.keySet());
    for (Map.Entry<String, Map<String, Long>> e : m.entrySet()) {
      Map<String, Long> x = e.getValue();
      assertTrue(
          x.getOrDefault("blocksRemote", 0L) > 0,
          "executor " + e.getKey() + " read no block from another host: " + x);
      assertTrue(
          x.getOrDefault("readsServed", 0L) > 0,
          "executor " + e.getKey() + " served no READ to another host: " + x);
      assertEquals(0L, x.getOrDefault("fallbacks", -1L), "executor " + e.getKey() + ": " + x);
      assertEquals(0L, x.getOrDefault("checksumMismatches", -1L), e.getKey() + ": " + x);
    }
    System.out.println("daemon memory after both applications: " + ClusterTesting.memory(cluster));
  }

  /**
   * Speculation across hosts (Spark never launches a copy on the host of the attempt it copies, so
   * one host can't show it): map task 0 and reduce task 0 straggle in their first attempt, their
   * speculative copies run on other hosts and win, the stragglers are killed. The reducers read the
   * winning map attempt's output through our transport and the sums are right.
   */
  @Test
  void speculativeCopiesOfAMapAndAReduceTaskWinOnOtherHostsAndTheSumsAreRight() throws Exception {
    Path out = cluster.shared().resolve("spark-speculation");
    SparkApplication.Outcome run =
        app("spark-speculation", "io.rdmashuffle.cluster.apps.SpeculationApp", out)
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            .conf("spark.speculation", "true")
            .conf("spark.speculation.interval", "200ms")
            .conf("spark.speculation.quantile", "0.5")
            .conf("spark.speculation.multiplier", "1.5")
            .run(600);
    assertTrue(run.ok(), "the speculation application failed: " + run.tail());
    List<String> expected = Files.readAllLines(out.resolve("expected.txt"));
    assertTrue(expected.size() > 2000, "expected " + expected.size() + " keys");
    assertEquals(expected, Files.readAllLines(out.resolve("results.txt")), "sums differ");

    Map<String, Long> outcomes = new TreeMap<>();
    for (String l : Files.readAllLines(out.resolve("outcomes.txt"))) {
      outcomes.put(l.substring(0, l.indexOf('=')), Long.parseLong(l.substring(l.indexOf('=') + 1)));
    }
    System.out.println("speculation: task outcomes " + outcomes);
    assertTrue(outcomes.getOrDefault("map.speculativeSucceeded", 0L) >= 1, outcomes.toString());
    assertTrue(outcomes.getOrDefault("reduce.speculativeSucceeded", 0L) >= 1, outcomes.toString());
    for (String bad :
        List.of("map.fetchFailed", "reduce.fetchFailed", "map.failed", "reduce.failed")) {
      assertFalse(outcomes.containsKey(bad), bad + ": " + outcomes);
    }

    Map<String, Map<String, Long>> m = ClusterTesting.executorMetrics(out.resolve("metrics"));
    System.out.println("speculation: rdmaShuffle per executor " + m);
    assertEquals(3, m.size(), "executors with an rdmaShuffle source: " + m.keySet());
    assertTrue(
        m.values().stream().mapToLong(x -> x.getOrDefault("blocksRemote", 0L)).sum() > 0,
        "no block was read from another host: " + m);
    for (Map.Entry<String, Map<String, Long>> e : m.entrySet()) {
      assertEquals(0L, e.getValue().getOrDefault("fallbacks", -1L), e.getKey() + ": " + e);
      assertEquals(0L, e.getValue().getOrDefault("checksumMismatches", -1L), e.getKey() + ": " + e);
    }
  }

  /** Executor id to host, as the application's listener saw them. */
  private static Map<String, String> executors(Path out) throws IOException {
    Map<String, String> m = new TreeMap<>();
    for (String l : Files.readAllLines(out.resolve("executors.txt"))) {
      String[] f = l.split("\t");
      m.put(f[0], f[1]);
    }
    return m;
  }
}
