/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.util.ArrayDeque;

/**
 * What the parts of one {@link BlockFetcher} share: the application READs are made for, the segment
 * fetcher they go through, the queue of blocks ready for the consumer, the counters, and the way to
 * wait for a READ (pumping the fetcher's results). Whoever drives the fetcher, under its lock.
 */
final class FetchContext {
  /**
   * Waits (a slice at most) until {@code arrived} holds, dispatching what comes; used by streams
   * waiting for their next segment, which they name as {@code needed}.
   */
  interface Pump {
    void pump(SegmentRequest needed, java.util.function.BooleanSupplier arrived)
        throws java.io.IOException;
  }

  final String application;
  final SegmentFetcher segments;
  final ArrayDeque<Block> ready;
  final ReadCounters counters;
  final FetchOptions options;
  final Pump pump;
  final CorruptionDiagnosis diagnosis;
  private final java.util.function.Consumer<Block> settled;

  FetchContext(
      String application,
      SegmentFetcher segments,
      ArrayDeque<Block> ready,
      ReadCounters counters,
      FetchOptions options,
      Pump pump,
      CorruptionDiagnosis diagnosis,
      java.util.function.Consumer<Block> settled) {
    this.application = application;
    this.segments = segments;
    this.ready = ready;
    this.counters = counters;
    this.options = options;
    this.pump = pump;
    this.diagnosis = diagnosis;
    this.settled = settled;
  }

  /**
   * {@code b} is ready for the consumer, and its bytes are here (or it needs nothing more from its
   * owner: read from its file, or empty): it joins the queue and is {@linkplain #settled settled}.
   */
  void ready(Block b) {
    ready.add(b);
    settled(b);
  }

  /**
   * {@code b} needs nothing more from its owner: its bytes are in this task's buffers, or it is
   * read from its file, or the consumer took it. The batch it was located in may end, and its owner
   * is told when this reader is done with its map output ({@link Locates#settled}). Once per block.
   */
  void settled(Block b) {
    if (b.settle()) {
      settled.accept(b);
    }
  }

  BlockChecksum checksum(io.rdmashuffle.mapoutput.PartitionTable table, int partition) {
    return BlockChecksum.of(
        options.verify(), table.algorithm(), table.checksum(partition), diagnosis);
  }
}
