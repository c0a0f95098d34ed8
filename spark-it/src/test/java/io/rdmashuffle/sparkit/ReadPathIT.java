/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.HashPartitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * The read path in executor processes, every block through the transport (read.local=false),
 * results checked against what the stock shuffle returns (computed here without Spark): reduce
 * tasks of several-core executors sharing a small READ pool, and a byte flipped in a block streamed
 * in many segments, under lz4 and under zstd.
 */
@Timeout(600)
class ReadPathIT {
  private static final int SEGMENT = 64 * 1024;

  private static SparkConf throughTheTransport(String name, Path work, int cores, String codec) {
    return ItCluster.localCluster(name, work, ItCluster.EXECUTORS, cores)
        .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .set("spark.io.compression.codec", codec)
        .set("spark.shuffle.rdma.read.local", "false")
        .set("spark.shuffle.rdma.read.segmentSize", Integer.toString(SEGMENT));
  }

  /**
   * Two executors of four cores (spark.executor.cores unset, as in a standalone cluster), a READ
   * pool of 2 MiB per executor, every reduce task holding its first blocks for a second and a half
   * before it reads on: together they take no more than their shares of the pool (each task's
   * window is the pool divided among twice the executor's cores), no task fails (a shortage would
   * be a task failure, and a READ buffer waited for longer than read.timeout is one), no fetch
   * fails, no stage runs twice. Then a corrupted streamed block under lz4; Spark's checksums are
   * CRC32C.
   */
  @Test
  void contentionForASmallReadPoolThenStreamedCorruptionWithLz4() throws Exception {
    Path work = ItCluster.workDir("contention");
    SparkSession s =
        Differential.start(
            throughTheTransport("contention-lz4", work, 4, "lz4")
                .set("spark.shuffle.checksum.algorithm", "CRC32C")
                .set("spark.shuffle.rdma.buffers.maxBytes", "2m")
                .set("spark.shuffle.rdma.buffers.chunkSize", "256k")
                .set("spark.shuffle.rdma.read.timeout", "5s"));
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      TaskOutcomes outcomes = TaskOutcomes.watch(sc);
      // 4 maps of 3 MiB, 16 reduce partitions: each reduce reads 4 blocks of 192 KiB (streamed)
      JavaPairRDD<Integer, byte[]> data = randomValues(sc, 4, 1536, 16, 2048, false);
      List<String> result =
          sorted(
              data.partitionBy(new HashPartitioner(16))
                  .mapPartitions(ReadPathIT::digestsHoldingBlocks)
                  .collect());
      outcomes.settle(sc);
      assertEquals(expectedDigests(4, 1536, 16, 2048, false), result);
      assertEquals(0, outcomes.fetchFailures.get(), outcomes.toString());
      assertEquals(0, outcomes.otherFailures.get(), outcomes.toString());
      assertEquals(0, outcomes.stageReattempts.get(), outcomes.toString());
      Map<String, Map<String, Long>> p = ItCluster.probe(sc);
      assertEquals(0, ItCluster.total(p, "blocksLocal"), p.toString());
      assertEquals(16 * 4, ItCluster.total(p, "blocksRemote"), p.toString());
      assertEquals(0, ItCluster.total(p, "fallbacks"), p.toString());
      for (Map<String, Long> e : p.values()) {
        // each task's window is the pool divided among twice the executor's four cores, and what
        // its consumer holds is bounded by twice that window: together the four tasks fit in the
        // pool, which never grows past its bound (a shortage would have failed a task above)
        assertTrue(
            e.get("bufferPoolBytes") <= 2 * 1024 * 1024,
            "the READ pool of one executor grew past buffers.maxBytes: " + p);
        assertEquals(0, e.get("bufferPoolLentBytes"), "READ buffers still lent: " + p);
      }
      System.out.println("contention: " + outcomes + "\n" + p);
      aFlippedByteInAStreamedBlockFailsTheFetchAndTheMapRunsAgain(sc);
    } finally {
      Differential.stop(s);
    }
  }

  /** The same corruption under zstd (its decompressor, or our checksum, finds it first). */
  @Test
  void streamedCorruptionWithZstd() throws Exception {
    Path work = ItCluster.workDir("zstd");
    SparkSession s = Differential.start(throughTheTransport("corruption-zstd", work, 1, "zstd"));
    try {
      aFlippedByteInAStreamedBlockFailsTheFetchAndTheMapRunsAgain(ItCluster.jsc(s));
    } finally {
      Differential.stop(s);
    }
  }

  /**
   * Runs the map stage alone, flips the middle byte of its largest block (many READ segments long),
   * runs the reduce stage: it fails the fetch of that map output, the map runs again, the result is
   * right.
   */
  private static void aFlippedByteInAStreamedBlockFailsTheFetchAndTheMapRunsAgain(
      JavaSparkContext sc) throws Exception {
    // 2 maps; key 0 takes 3 MiB of each map output, keys 1 to 7 share 200 KiB
    JavaPairRDD<Integer, byte[]> partitioned =
        randomValues(sc, 2, 1600, 8, 2048, true).partitionBy(new HashPartitioner(4));
    ShuffleDependency<?, ?, ?> dep =
        (ShuffleDependency<?, ?, ?>) partitioned.rdd().dependencies().head();
    Map<String, Map<String, Long>> before = ItCluster.probe(sc);
    sc.sc().submitMapStage(dep).get();
    ShuffleFiles.BlockRange block = ShuffleFiles.largestBlock(dep.shuffleId(), sc.sc().startTime());
    assertTrue(block.length() > 8L * SEGMENT, "not a streamed block: " + block);
    ShuffleFiles.flipByte(block.data(), block.offset() + block.length() / 2);
    TaskOutcomes outcomes = TaskOutcomes.watch(sc);
    List<String> result = sorted(partitioned.mapPartitions(ReadPathIT::digests).collect());
    outcomes.settle(sc);
    assertEquals(expectedDigests(2, 1600, 8, 2048, true), result);
    assertTrue(outcomes.fetchFailures.get() >= 1, "the flipped byte went unnoticed: " + outcomes);
    assertTrue(outcomes.stageReattempts.get() >= 1, outcomes.toString());
    assertTrue(outcomes.mapTasksSucceeded.get() >= 1, "no map ran again: " + outcomes);
    Map<String, Map<String, Long>> after = ItCluster.probe(sc);
    // caught by our checksum, or first by the decompressor: a fetch failure either way
    long found =
        ItCluster.total(after, "checksumMismatches")
            - ItCluster.total(before, "checksumMismatches")
            + ItCluster.total(after, "fetchFailures.stream")
            - ItCluster.total(before, "fetchFailures.stream");
    assertTrue(found >= 1, "before " + before + "\nafter " + after);
    System.out.println(
        "streamed corruption ("
            + sc.getConf().get("spark.io.compression.codec")
            + ", block of "
            + block.length()
            + " bytes): "
            + outcomes
            + "\n"
            + after);
  }

  /**
   * {@code maps} map tasks of {@code records} records each: a key below {@code keys} (round robin,
   * or key 0 for all but one record in eight when {@code skewed}) and {@code valueBytes} random
   * bytes (incompressible).
   */
  static JavaPairRDD<Integer, byte[]> randomValues(
      JavaSparkContext sc, int maps, int records, int keys, int valueBytes, boolean skewed) {
    List<Integer> seeds = IntStream.range(0, maps).boxed().collect(Collectors.toList());
    return sc.parallelize(seeds, maps)
        .flatMapToPair(seed -> records(seed, records, keys, valueBytes, skewed).iterator());
  }

  private static List<Tuple2<Integer, byte[]>> records(
      int seed, int records, int keys, int valueBytes, boolean skewed) {
    Random r = new Random(seed);
    List<Tuple2<Integer, byte[]>> out = new ArrayList<>(records);
    for (int i = 0; i < records; i++) {
      byte[] v = new byte[valueBytes];
      r.nextBytes(v);
      int key = skewed ? (i % 8 == 0 ? 1 + i % (keys - 1) : 0) : i % keys;
      out.add(new Tuple2<>(key, v));
    }
    return out;
  }

  /** Per key: how many values and the sum of their hashes, as "key:count:sum", sorted. */
  static List<String> expectedDigests(
      int maps, int records, int keys, int valueBytes, boolean skewed) {
    Map<Integer, long[]> d = new TreeMap<>();
    for (int seed = 0; seed < maps; seed++) {
      for (Tuple2<Integer, byte[]> t : records(seed, records, keys, valueBytes, skewed)) {
        add(d, t);
      }
    }
    return sorted(format(d));
  }

  private static void add(Map<Integer, long[]> d, Tuple2<Integer, byte[]> t) {
    long[] a = d.computeIfAbsent(t._1(), k -> new long[2]);
    a[0]++;
    a[1] += Arrays.hashCode(t._2());
  }

  private static List<String> format(Map<Integer, long[]> d) {
    return d.entrySet().stream()
        .map(e -> e.getKey() + ":" + e.getValue()[0] + ":" + e.getValue()[1])
        .collect(Collectors.toList());
  }

  static Iterator<String> digests(Iterator<Tuple2<Integer, byte[]>> it) {
    Map<Integer, long[]> d = new TreeMap<>();
    it.forEachRemaining(t -> add(d, t));
    return format(d).iterator();
  }

  /** Holds the first blocks a while, then reads on slowly. */
  static Iterator<String> digestsHoldingBlocks(Iterator<Tuple2<Integer, byte[]>> it)
      throws InterruptedException {
    Map<Integer, long[]> d = new TreeMap<>();
    int n = 0;
    while (it.hasNext()) {
      add(d, it.next());
      if (n++ == 0) {
        Thread.sleep(1500);
      } else if (n % 64 == 0) {
        Thread.sleep(40);
      }
    }
    return format(d).iterator();
  }

  static List<String> sorted(List<String> l) {
    List<String> c = new ArrayList<>(l);
    Collections.sort(c);
    return c;
  }
}
