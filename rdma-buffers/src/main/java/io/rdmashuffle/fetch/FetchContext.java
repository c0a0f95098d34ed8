package io.rdmashuffle.fetch;

import java.util.ArrayDeque;

/**
 * What the parts of one {@link BlockFetcher} share: the application READs are made for, the segment
 * fetcher they go through, the queue of blocks ready for the consumer, the counters, and the way to
 * wait for a READ (pumping the fetcher's results). Consumer thread only.
 */
final class FetchContext {
  /** Waits for one result and dispatches it; used by streams waiting for their next segment. */
  interface Pump {
    void pump(SegmentRequest needed) throws java.io.IOException;
  }

  final String application;
  final SegmentFetcher segments;
  final ArrayDeque<Block> ready;
  final ReadCounters counters;
  final BlockFetcher.Options options;
  final Pump pump;

  FetchContext(
      String application,
      SegmentFetcher segments,
      ArrayDeque<Block> ready,
      ReadCounters counters,
      BlockFetcher.Options options,
      Pump pump) {
    this.application = application;
    this.segments = segments;
    this.ready = ready;
    this.counters = counters;
    this.options = options;
    this.pump = pump;
  }

  BlockChecksum checksum(io.rdmashuffle.mapoutput.PartitionTable table, int partition) {
    return BlockChecksum.of(options.verify(), table.algorithm(), table.checksum(partition));
  }
}
