/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the block readers of one process did: blocks and bytes read on this host and through the
 * transport, locate calls (and locates again after an owner withdrew a registration), retries,
 * checksum mismatches, failures by kind. Lock-free; engines publish {@link #snapshot()} next to the
 * transport's counters.
 */
public final class ReadCounters {
  final LongAdder localBlocks = new LongAdder();
  final LongAdder localBytes = new LongAdder();
  final LongAdder remoteBlocks = new LongAdder();
  final LongAdder remoteBytes = new LongAdder();
  final LongAdder checksumMismatches = new LongAdder();
  final LongAdder locates = new LongAdder();
  final LongAdder relocates = new LongAdder();
  final LongAdder retries = new LongAdder();
  final LongAdder busy = new LongAdder();
  private final EnumMap<BlockFetchException.Kind, LongAdder> failures =
      new EnumMap<>(BlockFetchException.Kind.class);
  private final EnumMap<CorruptionCause, LongAdder> corruptions =
      new EnumMap<>(CorruptionCause.class);

  public ReadCounters() {
    for (BlockFetchException.Kind k : BlockFetchException.Kind.values()) {
      failures.put(k, new LongAdder());
    }
    for (CorruptionCause c : CorruptionCause.values()) {
      corruptions.put(c, new LongAdder());
    }
  }

  /** Counts a checksum mismatch by its diagnosed cause. */
  void corrupted(CorruptionCause cause) {
    corruptions.get(cause).increment();
  }

  /** Checksum mismatches diagnosed as {@code cause}. */
  public long corruptions(CorruptionCause cause) {
    return corruptions.get(cause).sum();
  }

  /** Counts a block the engine could not decode (bad bytes its decompressor found first). */
  public void streamFailed() {
    failures.get(BlockFetchException.Kind.STREAM).increment();
  }

  /** Counts a failure and builds its exception. */
  BlockFetchException failure(
      BlockFetchException.Kind kind,
      BlockSource source,
      int partition,
      String message,
      Throwable cause) {
    failures.get(kind).increment();
    if (kind == BlockFetchException.Kind.CHECKSUM) {
      checksumMismatches.increment();
    }
    return new BlockFetchException(kind, source, partition, message, cause);
  }

  public long failures(BlockFetchException.Kind kind) {
    return failures.get(kind).sum();
  }

  public long checksumMismatches() {
    return checksumMismatches.sum();
  }

  /** Every counter by a stable name. */
  public Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("blocksLocal", localBlocks.sum());
    m.put("bytesLocal", localBytes.sum());
    m.put("blocksRemote", remoteBlocks.sum());
    m.put("bytesRemote", remoteBytes.sum());
    m.put("checksumMismatches", checksumMismatches.sum());
    m.put("locates", locates.sum());
    m.put("relocates", relocates.sum());
    m.put("retries", retries.sum());
    m.put("busyAnswers", busy.sum());
    for (BlockFetchException.Kind k : BlockFetchException.Kind.values()) {
      m.put("fetchFailures." + k.name().toLowerCase(Locale.ROOT), failures(k));
    }
    for (CorruptionCause c : CorruptionCause.values()) {
      m.put("corruptions." + c.name(), corruptions(c));
    }
    return m;
  }
}
