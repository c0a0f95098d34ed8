/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One READ of consecutive small blocks of one map output (up to the segment size), split into one
 * {@link MemoryBlock} per partition when it arrives; the blocks share the READ's buffer, which goes
 * back to the pool when the last of them is released.
 */
final class RunRead implements PendingRead {
  private final FetchContext ctx;
  private final BlockSource source;
  private final PartitionTable planned;
  private final long from;
  private long to;
  private final List<Integer> partitions = new ArrayList<>();
  private final List<Long> starts = new ArrayList<>();
  private final List<BlockChecksum> checksums = new ArrayList<>();

  RunRead(FetchContext ctx, BlockSource source, PartitionTable planned, long from) {
    this.ctx = ctx;
    this.source = source;
    this.planned = planned;
    this.from = from;
    this.to = from;
  }

  /** Whether a block at {@code start} of {@code length} bytes continues this run. */
  boolean accepts(long start, long length, int segmentSize) {
    return to == start && to - from + length <= segmentSize;
  }

  void add(int partition, long start, long length, BlockChecksum checksum) {
    partitions.add(partition);
    starts.add(start);
    checksums.add(checksum);
    to = start + length;
  }

  void submit(PeerAddress responder, RegisteredFileDescriptor data) {
    ctx.segments.add(
        new SegmentRequest(responder, ctx.application, data, from, (int) (to - from), this));
  }

  @Override
  public BlockSource source() {
    return source;
  }

  @Override
  public int partition() {
    return partitions.get(0);
  }

  @Override
  public int lastPartition() {
    return partitions.get(partitions.size() - 1);
  }

  @Override
  public void arrived(FetchedSegment segment) {
    try {
      for (int i = 0; i < partitions.size(); i++) {
        long start = starts.get(i);
        long end = i + 1 < partitions.size() ? starts.get(i + 1) : to;
        ctx.ready(
            new MemoryBlock(
                source,
                partitions.get(i),
                segment,
                (int) (start - from),
                (int) (end - start),
                checksums.get(i),
                ctx.counters));
      }
    } finally {
      segment.release(); // each block holds its own reference
    }
  }

  @Override
  public void reissue(PeerAddress responder, RegisteredFileDescriptor data) {
    submit(responder, data);
  }

  @Override
  public boolean sameLayout(PartitionTable table) {
    for (int p : partitions) {
      if (!planned.sameBlock(table, p)) {
        return false;
      }
    }
    return true;
  }
}
