/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.counters.CounterDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.ShuffleReadMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * The manager in {@code local[N]}: the driver runs the tasks and serves the map outputs itself.
 * Results are checked against the same computation in plain Java.
 */
@Timeout(180)
class LocalModeTest {
  @TempDir java.nio.file.Path dir;

  private SparkConf conf() {
    return new SparkConf()
        .setMaster("local[2]")
        .setAppName("rdma-shuffle-local")
        .set("spark.shuffle.manager", RdmaShuffleManager.class.getName())
        .set("spark.local.dir", dir.toString())
        .set("spark.ui.enabled", "false")
        .set("spark.shuffle.rdma.transport", "tcp");
  }

  private static List<Tuple2<Integer, Integer>> data() {
    return IntStream.range(0, 20_000)
        .mapToObj(i -> new Tuple2<>(i % 997, i))
        .collect(Collectors.toList());
  }

  private static Map<Integer, Long> expectedSums() {
    Map<Integer, Long> m = new TreeMap<>();
    for (Tuple2<Integer, Integer> t : data()) {
      m.merge(t._1(), (long) t._2(), Long::sum);
    }
    return m;
  }

  private static RdmaShuffleManager manager() {
    return (RdmaShuffleManager) SparkEnv.get().shuffleManager();
  }

  /** Sums of the shuffle read metrics of every finished task. */
  static final class ReadMetrics extends SparkListener {
    final LongAdder records = new LongAdder();
    final LongAdder localBlocks = new LongAdder();
    final LongAdder localBytes = new LongAdder();
    final LongAdder remoteBlocks = new LongAdder();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if (end.taskMetrics() != null) {
        ShuffleReadMetrics m = end.taskMetrics().shuffleReadMetrics();
        records.add(m.recordsRead());
        localBlocks.add(m.localBlocksFetched());
        localBytes.add(m.localBytesRead());
        remoteBlocks.add(m.remoteBlocksFetched());
      }
    }
  }

  @Test
  void shufflesAreServedFromRegisteredMemoryAndCorrect() throws Exception {
    try (JavaSparkContext sc = new JavaSparkContext(conf())) {
      ReadMetrics read = new ReadMetrics();
      sc.sc().addSparkListener(read);
      JavaPairRDD<Integer, Integer> pairs = sc.parallelizePairs(data(), 4);
      assertEquals(20_000, pairs.repartition(3).count());
      sc.sc().listenerBus().waitUntilEmpty();
      // the task metrics the UI shows: every record read, every block local (one process)
      assertEquals(20_000, read.records.sum());
      assertTrue(read.localBlocks.sum() > 0 && read.localBytes.sum() > 0);
      assertEquals(0, read.remoteBlocks.sum());

      Map<Integer, Long> sums =
          new TreeMap<>(pairs.mapValues(v -> (long) v).reduceByKey(Long::sum, 5).collectAsMap());
      assertEquals(expectedSums(), sums);

      List<Tuple2<Integer, Iterable<Integer>>> groups = pairs.groupByKey(3).collect();
      assertEquals(997, groups.size());
      long n = groups.stream().mapToLong(g -> g._2().spliterator().getExactSizeIfKnown()).sum();
      assertEquals(20_000, n);

      List<Integer> sorted = pairs.sortByKey(false, 4).keys().collect();
      List<Integer> expected = new ArrayList<>(data().stream().map(Tuple2::_1).toList());
      expected.sort((a, b) -> b - a);
      assertEquals(expected, sorted);

      Map<String, Long> m = manager().metricsSnapshot();
      assertTrue(m.get("mapOutputsPublished") > 0, m.toString());
      assertTrue(m.get("blocksLocal") > 0, m.toString());
      assertEquals(0L, m.get("fallbacks"), m.toString());
      assertEquals(0L, m.get("checksumMismatches"), m.toString());
      // Spark's writers computed CRC32, the checksum the manager chooses when the application
      // chose none (Spark names its checksum files after their algorithm)
      List<String> checksumFiles = new ArrayList<>();
      for (java.io.File dir : SparkEnv.get().blockManager().diskBlockManager().localDirs()) {
        try (java.util.stream.Stream<java.nio.file.Path> files =
            java.nio.file.Files.walk(dir.toPath())) {
          files
              .map(f -> f.getFileName().toString())
              .filter(f -> f.contains(".checksum"))
              .forEach(checksumFiles::add);
        }
      }
      assertFalse(checksumFiles.isEmpty(), "no checksum file");
      assertTrue(
          checksumFiles.stream().allMatch(f -> f.endsWith(".checksum.CRC32")),
          checksumFiles.toString());

      // the metrics source every sink sees
      scala.collection.Seq<org.apache.spark.metrics.source.Source> sources =
          SparkEnv.get().metricsSystem().getSourcesByName("rdmaShuffle");
      assertEquals(1, sources.size());
      Map<String, com.codahale.metrics.Metric> metrics =
          sources.head().metricRegistry().getMetrics();
      for (String name :
          List.of(
              "bytesServed",
              "registeredBytes",
              "mapOutputsServed",
              "fallbacks.transportUnavailable",
              "failures.timeout",
              "checksumMismatches")) {
        assertTrue(metrics.containsKey(name), name + " in " + metrics.keySet());
      }
      assertTrue(metrics.get("readLatencyMicros") instanceof com.codahale.metrics.Histogram);
      // exactly the declared counters (docs/metrics.md lists them from the same declarations)
      java.util.Set<String> declared = new TreeSet<>();
      for (Class<? extends CounterDescriptor> g : SparkCounter.SOURCE_GROUPS) {
        for (CounterDescriptor c : g.getEnumConstants()) {
          declared.add(c.exportName());
        }
      }
      assertEquals(declared, new TreeSet<>(metrics.keySet()));
      Object served =
          ((com.codahale.metrics.Gauge<?>) metrics.get("mapOutputsPublished")).getValue();
      assertTrue((Long) served > 0);
    }
  }

  @Test
  void aCorruptedDataFileIsAFetchFailureAndTheMapRunsAgain() throws Exception {
    try (JavaSparkContext sc = new JavaSparkContext(conf())) {
      java.util.concurrent.atomic.AtomicInteger fetchFailed =
          new java.util.concurrent.atomic.AtomicInteger();
      sc.sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                  if (end.reason() instanceof org.apache.spark.FetchFailed) {
                    fetchFailed.incrementAndGet();
                  }
                }
              });
      JavaPairRDD<Integer, Long> sums =
          sc.parallelizePairs(data(), 4).mapValues(v -> (long) v).reduceByKey(Long::sum, 5);
      assertEquals(expectedSums(), new TreeMap<>(sums.collectAsMap()));
      java.nio.file.Path victim;
      try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
        victim =
            files
                .filter(f -> f.getFileName().toString().endsWith(".data"))
                .max((a, b) -> Long.compare(a.toFile().length(), b.toFile().length()))
                .orElseThrow();
      }
      long at = java.nio.file.Files.size(victim) / 2;
      try (java.nio.channels.FileChannel ch =
          java.nio.channels.FileChannel.open(
              victim,
              java.nio.file.StandardOpenOption.READ,
              java.nio.file.StandardOpenOption.WRITE)) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
        ch.read(b, at);
        b.put(0, (byte) (b.get(0) ^ 0xff)).rewind();
        ch.write(b, at);
      }
      // the map stage is skipped: the reduce tasks read the bad bytes, fail the fetch, and Spark
      // runs the map again
      assertEquals(expectedSums(), new TreeMap<>(sums.collectAsMap()));
      sc.sc().listenerBus().waitUntilEmpty();
      assertTrue(fetchFailed.get() >= 1, "the corrupted block was not detected");
      // caught by our checksum, or first by Spark's decompressor: a fetch failure either way
      Map<String, Long> m = manager().metricsSnapshot();
      assertTrue(m.get("checksumMismatches") + m.get("fetchFailures.stream") >= 1, m.toString());
    }
  }

  @Test
  void switchedOffEveryShuffleIsStockAndCounted() {
    try (JavaSparkContext sc =
        new JavaSparkContext(conf().set("spark.shuffle.rdma.enabled", "false"))) {
      Map<Integer, Long> sums =
          new TreeMap<>(
              sc.parallelizePairs(data(), 4)
                  .mapValues(v -> (long) v)
                  .reduceByKey(Long::sum, 5)
                  .collectAsMap());
      assertEquals(expectedSums(), sums);
      Map<String, Long> m = manager().metricsSnapshot();
      assertEquals(1L, m.get("fallbacks.disabled"), m.toString());
      assertEquals(0L, m.get("mapOutputsPublished"), m.toString());
      assertNull(manager().ownerIfStarted());
    }
  }

  @Test
  void aTransportThatCannotStartFallsBackPerShuffle() {
    // verbs is forced and can't run on this machine: each shuffle falls back, with the cause
    try (JavaSparkContext sc =
        new JavaSparkContext(conf().set("spark.shuffle.rdma.transport", "verbs"))) {
      JavaPairRDD<Integer, Long> pairs = sc.parallelizePairs(data(), 4).mapValues(v -> (long) v);
      assertEquals(expectedSums(), new TreeMap<>(pairs.reduceByKey(Long::sum, 5).collectAsMap()));
      assertEquals(expectedSums(), new TreeMap<>(pairs.reduceByKey(Long::sum, 3).collectAsMap()));
      Map<String, Long> m = manager().metricsSnapshot();
      assertEquals(2L, m.get("fallbacks.transportUnavailable"), m.toString());
      assertNotNull(manager().unavailableCause());
      assertTrue(manager().unavailableCause().contains("verbs"), manager().unavailableCause());
    }
  }

  @Test
  void aBadSettingStopsTheStartNamingKeyAndValue() {
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                new JavaSparkContext(conf().set("spark.shuffle.rdma.read.timeout", "soon"))
                    .close());
    Throwable t = e;
    while (t.getCause() != null
        && (t.getMessage() == null || !t.getMessage().contains("spark.shuffle.rdma"))) {
      t = t.getCause();
    }
    assertEquals(
        "spark.shuffle.rdma.read.timeout=soon: expected a duration such as 500ms, 30s" + " or 2min",
        t.getMessage());
  }
}
