/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.counters.CounterSet;
import java.util.Map;

/**
 * What the block readers of one process did: blocks and bytes read on this host and through the
 * transport, locate calls (and locates again after an owner withdrew a registration), retries,
 * checksum mismatches, failures by kind, each declared once in {@link ReadCounter}. Lock-free;
 * engines publish {@link #snapshot()} next to the transport's counters.
 */
public final class ReadCounters {
  private final CounterSet<ReadCounter> counters = new CounterSet<>(ReadCounter.class);

  public ReadCounters() {}

  /** Counts one of the block readers' events (blocks and bytes, locates, retries...). */
  void add(ReadCounter counter, long n) {
    counters.add(counter, n);
  }

  /** Counts one. */
  void increment(ReadCounter counter) {
    counters.increment(counter);
  }

  /** Counts a checksum mismatch by its diagnosed cause. */
  void corrupted(CorruptionCause cause) {
    counters.increment(ReadCounter.of(cause));
  }

  /** Checksum mismatches diagnosed as {@code cause}. */
  public long corruptions(CorruptionCause cause) {
    return counters.sum(ReadCounter.of(cause));
  }

  /** Counts a block the engine could not decode (bad bytes its decompressor found first). */
  public void streamFailed() {
    counters.increment(ReadCounter.of(BlockFetchException.Kind.STREAM));
  }

  /** Counts a failure and builds its exception. */
  BlockFetchException failure(
      BlockFetchException.Kind kind,
      BlockSource source,
      int partition,
      String message,
      Throwable cause) {
    counters.increment(ReadCounter.of(kind));
    if (kind == BlockFetchException.Kind.CHECKSUM) {
      counters.increment(ReadCounter.CHECKSUM_MISMATCHES);
    }
    return new BlockFetchException(kind, source, partition, message, cause);
  }

  public long failures(BlockFetchException.Kind kind) {
    return counters.sum(ReadCounter.of(kind));
  }

  public long checksumMismatches() {
    return counters.sum(ReadCounter.CHECKSUM_MISMATCHES);
  }

  /** A counter's value now. */
  public long value(ReadCounter counter) {
    return counters.sum(counter);
  }

  /** Every counter by its declared name ({@link ReadCounter}). */
  public Map<String, Long> snapshot() {
    return counters.snapshot();
  }
}
