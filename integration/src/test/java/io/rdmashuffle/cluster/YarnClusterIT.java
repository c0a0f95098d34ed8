/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.cluster.spark.SparkApplication;
import io.rdmashuffle.cluster.yarn.JobReport;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * YARN across three hosts: a ResourceManager and the job history server on rs-h1, a NodeManager on
 * every host running rdma-shuffle's service as {@code mapreduce_shuffle}, installed as the README
 * tells operators (the two yarn-site.xml properties, the plugin jar in {@code
 * share/hadoop/yarn/lib} and {@code share/hadoop/mapreduce/lib}). A word count runs with the stock
 * shuffle consumer and with ours: equal outputs, maps on more than one host, every map output READ
 * ({@code rdma-shuffle} counters). A Spark application on the same YARN reads across hosts with
 * rdma-shuffle. Then a NodeManager is restarted and registers again.
 */
@Timeout(900)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class YarnClusterIT {
  static final String GROUP = "rdma-shuffle";
  static final int MAPS = 6;
  static final int REDUCES = 3;
  static Cluster cluster;
  static Path input;

  @BeforeAll
  static void start() throws IOException {
    ClusterTesting.assumeRoot();
    cluster =
        Cluster.start(
            ClusterSpec.builder("yarn-it").hosts(3).yarn().build(), ClusterTesting.paths());
    System.out.println("daemon memory after start: " + ClusterTesting.memory(cluster));
    input = words(cluster.shared().resolve("in/words"), MAPS);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** {@code files} text files of random words: one map each. */
  static Path words(Path dir, int files) throws IOException {
    Files.createDirectories(dir);
    Random r = new Random(42);
    for (int f = 0; f < files; f++) {
      try (Writer w = Files.newBufferedWriter(dir.resolve("part-" + f + ".txt"))) {
        for (int line = 0; line < 20_000; line++) {
          for (int word = 0; word < 8; word++) {
            w.write("w" + r.nextInt(50_000) + (word == 7 ? "\n" : " "));
          }
        }
      }
    }
    return dir;
  }

  // full tier: MapReduceJobsIT's sort and join cover MapReduce across hosts in the ci tier
  @Test
  @Order(1)
  @EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
  void wordCountOnOurShuffleAcrossHostsEqualsTheStockOne() {
    JobReport stock =
        cluster.yarn().job("wordcount-stock", "wordcount").input(input).reducers(REDUCES).run(600);
    assertTrue(stock.succeeded(), stock.describe());
    JobReport ours =
        cluster
            .yarn()
            .job("wordcount-ours", "wordcount")
            .input(input)
            .reducers(REDUCES)
            .withRdmaShuffle()
            .run(600);
    assertTrue(ours.succeeded(), ours.describe());
    System.out.printf(
        "job times: stock %.1f s, ours %.1f s; ours ran maps on %s, reduces on %s%n",
        stock.seconds(), ours.seconds(), ours.hosts("MAP"), ours.hosts("REDUCE"));

    byte[] expected = stock.output();
    assertTrue(expected.length > 100_000, "the stock output has " + expected.length + " bytes");
    assertArrayEquals(expected, ours.output(), "outputs differ");

    assertEquals(MAPS, ours.hosts("MAP").size(), ours.describe());
    assertTrue(
        new TreeSet<>(ours.hosts("MAP")).size() >= 2,
        "every map ran on one host, no READ had to cross hosts: " + ours.hosts("MAP"));
    assertEquals(
        (long) MAPS * REDUCES,
        ours.counter(GROUP, "MAPS_READ"),
        "one READ copy per map output and reduce: " + ours.describe());
    assertEquals(0, ours.counter(GROUP, "FALLBACK_NODES"), ours.describe());
    assertEquals(0, ours.counter(GROUP, "FALLBACK_FETCHES"), ours.describe());
    assertEquals(0, ours.counter(GROUP, "READ_FAILURES"), ours.describe());
    assertEquals(
        ours.counter("org.apache.hadoop.mapreduce.TaskCounter", "REDUCE_SHUFFLE_BYTES"),
        ours.counter(GROUP, "BYTES_READ"),
        "bytes READ against Hadoop's shuffle bytes");
    assertEquals(0, stock.counter(GROUP, "MAPS_READ"), "the stock run used our consumer");
    System.out.println("daemon memory after both jobs: " + ClusterTesting.memory(cluster));
  }

  /**
   * Spark on the same YARN ({@code --master yarn}, Spark 4.2.0's jars: see the Spark home for YARN)
   * with rdma-shuffle over tcp: two executors in containers of two hosts, our READs crossed between
   * them.
   */
  @Test
  @Order(2)
  void sparkOnYarnWithOurShuffleReadsAcrossHosts() throws Exception {
    Path out = cluster.shared().resolve("spark-on-yarn");
    SparkApplication.Outcome o =
        ClusterTesting.withExecutorMetrics(
                cluster.yarn().sparkApplication("spark-on-yarn-ours", SparkStandaloneClusterIT.APP),
                out.resolve("metrics"))
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            // one executor per host: a host has room for one beside the AM, and not for two
            .conf("spark.executor.instances", "2")
            .conf("spark.executor.memory", "512m")
            .conf("spark.executor.cores", "2")
            .conf("spark.ui.enabled", "false")
            .args(out.toString(), "2")
            .run(600);
    assertTrue(o.ok(), "Spark on YARN failed: " + o.tail());
    System.out.printf("Spark on YARN (ours): %.1f s%n", o.seconds());
    List<String> hosts = Files.readAllLines(out.resolve("executors.txt"));
    assertEquals(
        2,
        new TreeSet<>(hosts.stream().map(l -> l.split("\t")[1]).toList()).size(),
        "executors not on two hosts: " + hosts);
    assertTrue(Files.readAllLines(out.resolve("results.txt")).size() > 100_000);
    var m = ClusterTesting.executorMetrics(out.resolve("metrics"));
    assertEquals(2, m.size(), "executors with an rdmaShuffle source: " + m.keySet());
    m.forEach(
        (executor, x) -> {
          assertTrue(
              x.getOrDefault("blocksRemote", 0L) > 0, executor + " read nothing remote: " + x);
          assertEquals(0L, x.getOrDefault("fallbacks", -1L), executor + ": " + x);
        });
  }

  @Test
  @Order(3)
  void aRestartedNodeManagerRegistersAgain() {
    Daemon nm = cluster.yarn().nodeManager(3);
    long pid = nm.pid();
    long t0 = System.nanoTime();
    cluster.restart(3, "nodemanager", 10_000);
    assertNotEquals(pid, nm.pid());
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    // the new process's own registration (its log since the restart), then the RM's count
    Probes.await(
        "the restarted NodeManager's registration",
        180,
        () -> sinceLastStart(nm).contains("Registered with ResourceManager as rs-h3:"),
        List.of(nm));
    cluster.yarn().awaitNodeManagers(3, 180);
    System.out.printf(
        "NodeManager restarted and registered in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    assertTrue(nm.alive(), nm.toString());
  }

  /** A daemon's log since its last start (the harness heads each start with "===="). */
  private static String sinceLastStart(Daemon d) {
    try {
      String log = Files.readString(d.spec().log());
      return log.substring(Math.max(0, log.lastIndexOf("\n==== ")));
    } catch (IOException e) {
      return "";
    }
  }
}
