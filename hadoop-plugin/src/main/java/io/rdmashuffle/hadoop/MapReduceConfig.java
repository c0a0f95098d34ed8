/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.ConfigType;
import java.util.List;

/**
 * The settings only MapReduce reads (its NodeManager service and its reduce tasks), declared once,
 * and the schema it reads every setting with: {@code mapreduce.shuffle.rdma.<key>} in {@code
 * yarn-site.xml} (the service) and {@code mapred-site.xml} (reduce tasks). Touches no Hadoop class,
 * so the operator templates can be generated without Hadoop on the class path.
 */
public final class MapReduceConfig {
  private MapReduceConfig() {}

  private static final long KIB = 1024L;
  private static final long MIB = 1024L * KIB;
  private static final long GIB = 1024L * MIB;

  public static final ConfigEntry<Long> FETCH_CHUNK_SIZE =
      ConfigEntry.builder("fetch.chunkSize", ConfigType.BYTES)
          .defaultValue(MIB)
          .range(64 * KIB, GIB)
          .side(ConfigEntry.Side.FETCHING)
          .doc(
              "A reduce task READs each map output segment in pieces of at most this size, each"
                  + " into a pooled registered buffer; must not exceed buffers.chunkSize.")
          .build();

  public static final ConfigEntry<Long> FETCH_MAX_BYTES_IN_FLIGHT =
      ConfigEntry.builder("fetch.maxBytesInFlight", ConfigType.BYTES)
          .defaultValue(32 * MIB)
          .range(64 * KIB, 16 * GIB)
          .side(ConfigEntry.Side.FETCHING)
          .doc(
              "Bytes a reduce task has READ or in flight and not yet handed to Hadoop's merge,"
                  + " shared evenly by its fetcher threads (mapreduce.reduce.shuffle.parallelcopies);"
                  + " this is direct memory of the task, on top of its heap.")
          .build();

  public static final ConfigEntry<Boolean> FETCH_HTTP_FALLBACK =
      ConfigEntry.builder("fetch.httpFallback", ConfigType.BOOLEAN)
          .defaultValue(true)
          .side(ConfigEntry.Side.FETCHING)
          .doc(
              "When a node's rdma-shuffle service can't be used (not installed, not answering,"
                  + " transport unreachable), fetch that node's map outputs over the stock HTTP"
                  + " shuffle (logged and counted in the job's counters). false: report such"
                  + " failures as fetch failures, as the stock shuffle reports a lost node.")
          .build();

  /** The core's settings and the above, under {@code mapreduce.shuffle.rdma.}. */
  public static final ConfigSchema SCHEMA =
      ConfigSchema.of(
          "MapReduce",
          "mapreduce.shuffle.rdma.",
          List.of(FETCH_CHUNK_SIZE, FETCH_MAX_BYTES_IN_FLIGHT, FETCH_HTTP_FALLBACK));
}
