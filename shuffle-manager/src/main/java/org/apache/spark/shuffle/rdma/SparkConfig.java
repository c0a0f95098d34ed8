/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.ConfigType;
import io.rdmashuffle.spark.SparkNodeService;
import java.util.List;

/**
 * The settings only the Spark ShuffleManager reads, declared once, and the schema it reads every
 * setting with: {@code spark.shuffle.rdma.<key>} in the SparkConf. Touches no Spark class, so the
 * operator templates can be generated without Spark on the class path.
 */
public final class SparkConfig {
  private SparkConfig() {}

  private static final long KIB = 1024L;
  private static final long MIB = 1024L * KIB;
  private static final long GIB = 1024L * MIB;

  public static final ConfigEntry<Boolean> ENABLED =
      ConfigEntry.builder("enabled", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "Serve shuffles from registered memory. false: every shuffle of the application"
                  + " falls back to Spark's stock sort shuffle (logged once with this cause and"
                  + " counted); the manager stays in place.")
          .build();

  public static final ConfigEntry<Boolean> READ_LOCAL =
      ConfigEntry.builder("read.local", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "Read blocks of map outputs on this host (this executor's, and other executors' of"
                  + " the same host) straight from their files, with no transport, as"
                  + " Spark's spark.shuffle.readHostLocalDisk does. false sends them through the"
                  + " transport like remote blocks (to measure the transport on one machine).")
          .build();

  public static final ConfigEntry<Boolean> CHECKSUM_VERIFY =
      ConfigEntry.builder("checksum.verify", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "Verify every block's checksum after reading it: Spark's shuffle checksum where it"
                  + " describes the committed bytes, otherwise a CRC32C computed when the map"
                  + " output is committed. A mismatch is a fetch failure, never wrong data."
                  + " false skips both.")
          .build();

  public static final ConfigEntry<Long> READ_SEGMENT_SIZE =
      ConfigEntry.builder("read.segmentSize", ConfigType.BYTES)
          .defaultValue(8 * MIB)
          .range(64 * KIB, GIB)
          .doc(
              "Largest single READ of block data. Consecutive small blocks of one map output are"
                  + " READ together up to this size; a larger block is READ in segments of this"
                  + " size and streamed to the task as they arrive. Bytes and READs in flight per"
                  + " task are bounded by spark.reducer.maxSizeInFlight and"
                  + " spark.reducer.maxReqsInFlight.")
          .build();

  /** The core's settings and the above, under {@code spark.shuffle.rdma.}. */
  public static final ConfigSchema SCHEMA =
      ConfigSchema.of(
          "Spark",
          "spark.shuffle.rdma.",
          List.of(ENABLED, READ_LOCAL, CHECKSUM_VERIFY, READ_SEGMENT_SIZE, SparkNodeService.PORT));
}
