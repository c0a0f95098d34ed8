/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.counters.CounterDescriptor;
import io.rdmashuffle.fetch.ReadCounter;
import io.rdmashuffle.metrics.TransportCounter;
import io.rdmashuffle.serve.ServingCounter;
import java.util.List;

/**
 * The Spark plugin's own counters in its metrics source ({@code rdmaShuffle}), beside the core's
 * groups, each declared once with its stable id (400..499), exported name and label. The fallbacks
 * by cause name their {@link FallbackLog.Cause}: each cause has exactly one counter.
 */
public enum SparkCounter implements CounterDescriptor {
  MAP_OUTPUTS_PUBLISHED(
      400, "mapOutputsPublished", "Map outputs published since start (withdrawn ones included)"),
  MAP_OUTPUTS_SERVED(401, "mapOutputsServed", "Map outputs published now"),
  BUFFER_POOL_BYTES(402, "bufferPoolBytes", "Bytes the READ buffer pool holds registered now"),
  BUFFER_POOL_LENT_BYTES(403, "bufferPoolLentBytes", "Bytes of READ buffers lent to readers now"),
  READERS(404, "readers", "Shuffle readers created (one per reduce task and shuffle)"),
  READERS_OF_MAP_RANGES(
      405, "readersOfMapRanges", "Shuffle readers of a range of maps (adaptive execution)"),
  LOCATE_CALLS(
      406,
      "locateCalls",
      "Locate calls this process sent to owners: its tasks' locates, those that waited for one"
          + " owner merged"),
  FALLBACKS_DISABLED(
      410,
      "fallbacks.disabled",
      FallbackLog.Cause.DISABLED,
      "Work on the stock shuffle: the operator switched rdma-shuffle off"),
  FALLBACKS_TRANSPORT_UNAVAILABLE(
      411,
      "fallbacks.transportUnavailable",
      FallbackLog.Cause.TRANSPORT_UNAVAILABLE,
      "Work on the stock shuffle: no transport could start on this node"),
  FALLBACKS_PUBLISH_FAILED(
      412,
      "fallbacks.publishFailed",
      FallbackLog.Cause.PUBLISH_FAILED,
      "Map outputs served the stock way: they could not be registered"),
  FALLBACKS_UNPUBLISHED_MAP_OUTPUT(
      413,
      "fallbacks.unpublishedMapOutput",
      FallbackLog.Cause.UNPUBLISHED_MAP_OUTPUT,
      "Reads the stock way: map outputs without rdma-shuffle's marker"),
  FALLBACKS_OTHER_TRANSPORT(
      414,
      "fallbacks.otherTransport",
      FallbackLog.Cause.OTHER_TRANSPORT,
      "Reads the stock way: map outputs served over a transport this reader does not run"),
  FALLBACKS_NETWORK_ENCRYPTION(
      415,
      "fallbacks.networkEncryption",
      FallbackLog.Cause.NETWORK_ENCRYPTION,
      "Work on the stock shuffle: Spark encrypts network traffic"),
  FALLBACKS(416, "fallbacks", "Work handed to Spark's stock shuffle, every cause"),
  READ_LATENCY_MICROS(
      420,
      "readLatencyMicros",
      "READ latency histogram (µs, power-of-two buckets): count and percentiles");

  /**
   * Every group the metrics source shows, one gauge per counter (but {@link #READ_LATENCY_MICROS},
   * a histogram), in the order of {@code RdmaShuffleManager.metricsSnapshot()}.
   */
  public static final List<Class<? extends CounterDescriptor>> SOURCE_GROUPS =
      List.of(TransportCounter.class, ServingCounter.class, ReadCounter.class, SparkCounter.class);

  private final Declaration declaration;
  private final FallbackLog.Cause cause;

  SparkCounter(int id, String exportName, String label) {
    this(id, exportName, null, label);
  }

  SparkCounter(int id, String exportName, FallbackLog.Cause cause, String label) {
    this.declaration = new Declaration(id, exportName, label);
    this.cause = cause;
  }

  @Override
  public Declaration declaration() {
    return declaration;
  }

  /** The fallback cause this counter counts, or null. */
  FallbackLog.Cause cause() {
    return cause;
  }
}
