/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.file.Path;

/**
 * Turns a located map output into blocks for the consumer: empty blocks at once; consecutive small
 * blocks READ together up to the segment size ({@link RunRead}); larger blocks READ in segments and
 * streamed ({@link StreamedBlock}); or, for a file on this host, blocks read from the file ({@link
 * LocalFileBlock}). Stateless.
 */
final class ReadPlanner {
  private ReadPlanner() {}

  /**
   * Queues the READs of {@code s}'s blocks {@code [from, to)} (indexes into its partitions) from
   * {@code data}, served by {@code responder}.
   */
  static void planReads(
      FetchContext ctx,
      BlockSource s,
      int from,
      int to,
      PartitionTable table,
      PeerAddress responder,
      RegisteredFileDescriptor data) {
    int segmentSize = ctx.options.segmentSize();
    RunRead run = null;
    for (int i = from; i < to; i++) {
      int p = s.partitions()[i];
      long start = table.start(p);
      long length = table.length(p);
      BlockChecksum checksum = ctx.checksum(table, p);
      if (length == 0) {
        ctx.ready(new MemoryBlock(s, p, null, 0, 0, checksum, ctx.counters));
        continue;
      }
      if (run != null && !run.accepts(start, length, segmentSize)) {
        run.submit(responder, data);
        run = null;
      }
      if (length > segmentSize) {
        new StreamedBlock(ctx, s, table, p, start, length, checksum).submit(responder, data);
        continue;
      }
      if (run == null) {
        run = new RunRead(ctx, s, table, start);
      }
      run.add(p, start, length, checksum);
    }
    if (run != null) {
      run.submit(responder, data);
    }
  }

  /** Queues {@code s}'s blocks as reads of {@code file} on this host. */
  static void planLocal(FetchContext ctx, BlockSource s, PartitionTable table, Path file) {
    planLocal(ctx, s, 0, s.partitions().length, table, file);
  }

  /** Queues {@code s}'s blocks {@code [from, to)} as reads of {@code file} on this host. */
  static void planLocal(
      FetchContext ctx, BlockSource s, int from, int to, PartitionTable table, Path path) {
    SharedDataFile file = new SharedDataFile(path, to - from);
    for (int i = from; i < to; i++) {
      int p = s.partitions()[i];
      ctx.ready(
          new LocalFileBlock(
              s, p, file, table.start(p), table.length(p), ctx.checksum(table, p), ctx.counters));
    }
  }
}
