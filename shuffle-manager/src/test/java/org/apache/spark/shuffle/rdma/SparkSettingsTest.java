/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.fetch.FetchOptions;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/**
 * A task's window is Spark's own ({@code spark.reducer.maxSizeInFlight}) however many cores the
 * executor has, because the READ buffer pool is sized for it; an operator's smaller pool shrinks it
 * to the task's share; and what rdma-shuffle holds off the heap is checked against the executor's
 * memory overhead.
 */
class SparkSettingsTest {
  private static final long MIB = 1L << 20;

  private static SparkConf conf(String... kv) {
    SparkConf c = new SparkConf(false);
    for (int i = 0; i < kv.length; i += 2) {
      c.set(kv[i], kv[i + 1]);
    }
    return c;
  }

  @Test
  void theWindowIsSparksMaxSizeInFlightAtThirtyTwoCores() {
    SparkConf spark = conf();
    RdmaConf settings = SparkSettings.forExecutor(spark, SparkSettings.load(spark), 32);
    assertEquals(
        2L * 32 * 48 * MIB,
        settings.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES),
        "the pool holds every task's window twice");
    FetchOptions o = SparkSettings.fetchOptions(spark, settings, 32);
    assertEquals(48 * MIB, o.maxBytesInFlight(), "not a 32nd of a fixed pool");
    RdmaConf small = SparkSettings.forExecutor(spark, SparkSettings.load(spark), 2);
    assertEquals(
        512 * MIB, small.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES), "never below the default");
  }

  @Test
  void anOperatorsSmallerPoolShrinksTheWindowToTheTasksShare() {
    SparkConf spark = conf("spark.shuffle.rdma.buffers.maxBytes", "256m");
    RdmaConf settings = SparkSettings.forExecutor(spark, SparkSettings.load(spark), 32);
    assertEquals(256 * MIB, settings.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES), "kept as set");
    assertEquals(4 * MIB, SparkSettings.fetchOptions(spark, settings, 32).maxBytesInFlight());
    SparkConf lower = conf("spark.reducer.maxSizeInFlight", "8m");
    assertEquals(
        8 * MIB,
        SparkSettings.fetchOptions(lower, SparkSettings.load(lower), 4).maxBytesInFlight(),
        "the operator's own smaller window");
  }

  @Test
  void whatIsHeldOffTheHeapIsCheckedAgainstTheMemoryOverhead() {
    SparkConf spark = conf("spark.executor.memory", "4g");
    RdmaConf settings = SparkSettings.forExecutor(spark, SparkSettings.load(spark), 8);
    String w = SparkSettings.overheadWarning(spark, settings, false);
    assertNotNull(w, "768m of READ buffers over max(384m, 10% of 4g)");
    assertTrue(w.contains("spark.shuffle.rdma.buffers.maxBytes="), w);
    assertTrue(w.contains("spark.executor.memoryOverhead"), w);
    SparkConf roomy = conf("spark.executor.memory", "4g", "spark.executor.memoryOverhead", "2g");
    assertNull(SparkSettings.overheadWarning(roomy, settings, false));
    String pinned = SparkSettings.overheadWarning(roomy, settings, true);
    assertNotNull(pinned, "verbs pins the served outputs too");
    assertTrue(pinned.contains("serve.maxPinnedBytes"), pinned);
  }

  @Test
  void streamsConcatenateWhenSparksBatchFetchWould() {
    assertTrue(SparkSettings.concatenatingStreams(new SparkConf(false)), "lz4, the default");
    assertTrue(
        SparkSettings.concatenatingStreams(
            new SparkConf(false).set("spark.io.compression.codec", "ZSTD")));
    assertTrue(
        SparkSettings.concatenatingStreams(
            new SparkConf(false)
                .set("spark.shuffle.compress", "false")
                .set("spark.io.compression.codec", "com.example.Codec")));
    assertFalse(
        SparkSettings.concatenatingStreams(
            new SparkConf(false).set("spark.io.compression.codec", "com.example.Codec")),
        "a codec Spark does not know to concatenate");
    assertFalse(
        SparkSettings.concatenatingStreams(
            new SparkConf(false).set("spark.io.encryption.enabled", "true")),
        "SPARK-34790: not with I/O encryption");
  }

  @Test
  void sparksChecksumsAreTakenOnlyWhereNoWriterRewritesTheBytes() {
    assertEquals(
        ChecksumAlgorithm.ADLER32, SparkSettings.exactSparkChecksums(new SparkConf(false)));
    assertEquals(
        ChecksumAlgorithm.CRC32C,
        SparkSettings.exactSparkChecksums(
            new SparkConf(false)
                .set("spark.shuffle.compress", "false")
                .set("spark.io.compression.codec", "com.example.Codec")
                .set("spark.shuffle.unsafe.fastMergeEnabled", "false")
                .set("spark.shuffle.checksum.algorithm", "CRC32C")));
    for (String[] kv :
        new String[][] {
          {"spark.shuffle.checksum.enabled", "false"},
          {"spark.io.encryption.enabled", "true"},
          {"spark.shuffle.unsafe.fastMergeEnabled", "false"},
          {"spark.io.compression.codec", "com.example.Codec"}
        }) {
      assertNull(
          SparkSettings.exactSparkChecksums(new SparkConf(false).set(kv[0], kv[1])),
          kv[0] + "=" + kv[1]);
    }
  }

  @Test
  void sparkWritesCrc32ChecksumsUnlessTheApplicationChoseAnAlgorithm() {
    SparkConf unset = new SparkConf(false);
    SparkSettings.chooseWriteChecksum(unset);
    assertEquals("CRC32", unset.get("spark.shuffle.checksum.algorithm"));
    assertEquals(ChecksumAlgorithm.CRC32, SparkSettings.exactSparkChecksums(unset));
    SparkConf chosen = new SparkConf(false).set("spark.shuffle.checksum.algorithm", "ADLER32");
    SparkSettings.chooseWriteChecksum(chosen);
    assertEquals("ADLER32", chosen.get("spark.shuffle.checksum.algorithm"));
  }
}
