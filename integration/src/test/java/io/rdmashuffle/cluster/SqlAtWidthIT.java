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
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Spark SQL at the width of a real job across three hosts (Spark standalone, one executor per
 * host): {@code spark.sql.shuffle.partitions=4000}, {@value #MAPS} map tasks per shuffle of the
 * fact table, AQE with coalescing, skew join and the local shuffle reader on ({@code WideSqlApp}).
 * The stock shuffle and ours ({@code tcp}) return the same rows; both final plans read coalesced
 * ranges of the 4,000 partitions; ours reads across hosts with no task failed, no fetch failure, no
 * stage run twice and no fallback. Full tier only: {@value #MAPS} map tasks twice per side take
 * minutes on a 2-core machine.
 *
 * <p>Both final plans split the hot key's partition (skew join) and read the fact's map outputs
 * locally after a broadcast decided at run time, so readers ask for ranges of map outputs; ours
 * counts them. Two settings make AQE see what a job this wide has: beyond 2,000 partitions a map
 * status keeps one average block size unless {@code spark.shuffle.accurateBlockSkewedFactor} is set
 * (Spark recommends the skew join's factor), which hid the hot partition; and a side whose
 * partitions are mostly empty (200 rows in 4,000) is never broadcast below {@code
 * spark.sql.adaptive.nonEmptyPartitionRatioForBroadcastJoin}. Without them (run of 2026-12-05)
 * neither happened on either stack.
 */
@Timeout(3600)
@EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
class SqlAtWidthIT {
  static final String APP = "io.rdmashuffle.cluster.apps.WideSqlApp";
  static final int MAPS = 2000;
  static final long ROWS = 2_000_000;
  static final int HOSTS = 3;
  static Cluster cluster;

  @BeforeAll
  static void start() throws InterruptedException {
    ClusterTesting.assumeRoot();
    cluster =
        ClusterTesting.startWhenFree(
            ClusterSpec.builder("sql-width").hosts(HOSTS).spark().workers(2, "1g").build());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static SparkApplication app(String name, Path out) throws IOException {
    return ClusterTesting.withExecutorMetrics(
            cluster.spark().application(name, APP), out.resolve("metrics"))
        .conf("spark.executor.memory", "768m")
        .conf("spark.driver.memory", "1g")
        .conf("spark.ui.enabled", "false")
        .conf("spark.sql.shuffle.partitions", "4000")
        .conf("spark.sql.adaptive.enabled", "true")
        .conf("spark.sql.adaptive.coalescePartitions.enabled", "true")
        // coalesce to the advisory size, not to the cluster's parallelism
        .conf("spark.sql.adaptive.coalescePartitions.parallelismFirst", "false")
        .conf("spark.sql.adaptive.advisoryPartitionSizeInBytes", "1m")
        .conf("spark.sql.adaptive.skewJoin.enabled", "true")
        .conf("spark.sql.adaptive.skewJoin.skewedPartitionFactor", "5")
        .conf("spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "2m")
        .conf("spark.sql.adaptive.localShuffleReader.enabled", "true")
        // at 4,000 partitions a map status records skewed blocks only with this factor set
        .conf("spark.shuffle.accurateBlockSkewedFactor", "5")
        // the small side has 200 rows in 4,000 partitions: let AQE broadcast it anyway
        .conf("spark.sql.adaptive.nonEmptyPartitionRatioForBroadcastJoin", "0")
        // the planner broadcasts nothing; AQE decides at run time (the app sets its threshold)
        .conf("spark.sql.autoBroadcastJoinThreshold", "-1")
        .args(out.toString(), Integer.toString(HOSTS), Integer.toString(MAPS), Long.toString(ROWS));
  }

  @Test
  void wideAdaptiveQueriesReturnTheStockRowsWithNoFetchFailure() throws Exception {
    Path stockOut = cluster.shared().resolve("sql-stock");
    Path oursOut = cluster.shared().resolve("sql-ours");
    SparkApplication.Outcome stock = app("sql-stock", stockOut).run(1500);
    assertTrue(stock.ok(), "the stock application failed: " + stock.tail());
    SparkApplication.Outcome ours =
        app("sql-ours", oursOut)
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            .run(1500);
    assertTrue(ours.ok(), "the rdma-shuffle application failed: " + ours.tail());
    System.out.printf(
        "application times: stock %.1f s, ours %.1f s%n", stock.seconds(), ours.seconds());
    printStages(stockOut, oursOut);

    List<String> expected = Files.readAllLines(stockOut.resolve("results.txt"));
    // the skew join's groups of k % 1000: 700 residues (k's last digit is never 0 off the hot key:
    // 7919 * id % 10 for the ids that are not hot) and the hot key 0; then the 13 values of c
    assertEquals(701 + 13, expected.size(), "stock rows: " + expected.size());
    assertEquals(
        expected,
        Files.readAllLines(oursOut.resolve("results.txt")),
        "rows differ from the stock shuffle's");

    for (Path out : List.of(stockOut, oursOut)) {
      String plans = Files.readString(out.resolve("plans.txt"));
      assertTrue(
          plans.contains("AQEShuffleRead coalesced"), out + ": no coalesced read:\n" + plans);
      assertTrue(plans.contains("skew=true"), out + ": no skew split:\n" + plans);
      assertTrue(
          plans.contains("BroadcastHashJoin"), out + ": no broadcast at run time:\n" + plans);
      assertTrue(plans.contains("AQEShuffleRead local"), out + ": no local read:\n" + plans);

      Map<String, Long> tasks = new TreeMap<>();
      for (String l : Files.readAllLines(out.resolve("tasks.txt"))) {
        String[] f = l.split("\t");
        tasks.put(f[0], Long.parseLong(f[1]));
      }
      assertEquals(0L, tasks.get("failed"), out + ": " + tasks);
      assertEquals(0L, tasks.get("fetchFailures"), out + ": " + tasks);
      List<String[]> stages =
          Files.readAllLines(out.resolve("stages.tsv")).stream().map(l -> l.split("\t")).toList();
      for (String[] s : stages) {
        assertEquals("0", s[1], out + ": stage " + s[0] + " ran again: " + String.join(" ", s));
        assertEquals("-", s[4], out + ": stage " + s[0] + " failed: " + String.join(" ", s));
      }
      assertTrue(
          stages.stream()
                  .filter(s -> Integer.parseInt(s[2]) == MAPS && Long.parseLong(s[3]) > 0)
                  .count()
              >= 2,
          out + ": fewer than two shuffle map stages of " + MAPS + " tasks");
    }

    Map<String, Map<String, Long>> m = ClusterTesting.executorMetrics(oursOut.resolve("metrics"));
    System.out.println("rdmaShuffle per executor: " + m);
    assertEquals(HOSTS, m.size(), "executors with an rdmaShuffle source: " + m.keySet());
    long mapRanges = 0;
    long remote = 0;
    for (Map.Entry<String, Map<String, Long>> e : m.entrySet()) {
      Map<String, Long> x = e.getValue();
      assertTrue(x.getOrDefault("blocksRemote", 0L) > 0, e.getKey() + " read nothing remote: " + x);
      assertEquals(0L, x.getOrDefault("fallbacks", -1L), e.getKey() + ": " + x);
      long fetchFailures =
          x.entrySet().stream()
              .filter(g -> g.getKey().startsWith("fetchFailures"))
              .mapToLong(Map.Entry::getValue)
              .sum();
      assertEquals(0L, fetchFailures, e.getKey() + ": " + x);
      mapRanges += x.getOrDefault("readersOfMapRanges", 0L);
      remote += x.getOrDefault("blocksRemote", 0L);
    }
    // every executor read hundreds of thousands of (mostly empty) blocks through the transport
    assertTrue(remote > MAPS * 100L, "blocks read remotely: " + remote);
    System.out.printf("readers of ranges of map outputs: %d%n", mapRanges);
    assertTrue(mapRanges > 0, "no reader of a range of map outputs (skew split, local read)");
  }

  /**
   * Each stage's milliseconds, stock's then ours: wall time, its tasks' run time, CPU time and
   * fetch wait (where a gap is: map or reduce stages, waiting or working). Stages are paired by
   * their tasks and shuffle bytes written, in order: the two runs may number them differently.
   */
  private static void printStages(Path stockOut, Path oursOut) throws IOException {
    Map<String, ArrayDeque<String[]>> stock = new HashMap<>();
    for (String l : Files.readAllLines(stockOut.resolve("stages.tsv"))) {
      String[] s = l.split("\t");
      stock.computeIfAbsent(s[2] + "/" + s[3], k -> new ArrayDeque<>()).add(s);
    }
    System.out.println("stage tasks | wall run cpu fetchWait (ms): stock | ours");
    for (String l : Files.readAllLines(oursOut.resolve("stages.tsv"))) {
      String[] o = l.split("\t");
      ArrayDeque<String[]> same = stock.get(o[2] + "/" + o[3]);
      String[] s = same == null ? null : same.poll();
      System.out.printf(
          "%5s %5s | %s | %s%n",
          o[0],
          o[2],
          s == null ? "-" : String.join(" ", Arrays.copyOfRange(s, 5, s.length)),
          String.join(" ", Arrays.copyOfRange(o, 5, o.length)));
    }
  }
}
