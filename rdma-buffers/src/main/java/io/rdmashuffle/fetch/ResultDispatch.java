/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;

/**
 * Routes each result a {@link BlockFetcher}'s {@link SegmentFetcher} delivers to whoever awaits it:
 * a segment READ to its {@link PendingRead}; a failed READ to a new locate when its owner withdrew
 * the registration, else to a failure saying whose it is (the reader's own shortage of buffers, or
 * the transport's); a locate answer or a retry coming due to the {@link Locates}. Under the
 * fetcher's lock.
 */
final class ResultDispatch {
  private final Locates locates;
  private final ReadCounters counters;

  ResultDispatch(Locates locates, ReadCounters counters) {
    this.locates = locates;
    this.counters = counters;
  }

  /**
   * Hands {@code r} on.
   *
   * @throws BlockFetchException when a block can't be read
   */
  void dispatch(SegmentFetcher.Result r) throws BlockFetchException {
    if (r instanceof FetchedSegment f) {
      ((PendingRead) f.request().tag()).arrived(f);
    } else if (r instanceof SegmentFetcher.Failed f) {
      failed((PendingRead) f.request().tag(), f);
    } else if (((SegmentFetcher.Signal) r).event() instanceof Locates.Retry due) {
      locates.due(due);
    } else {
      locates.answered((Locates.Call) ((SegmentFetcher.Signal) r).event());
    }
  }

  private void failed(PendingRead read, SegmentFetcher.Failed f) throws BlockFetchException {
    BlockSource s = read.source();
    if (f.shortage()) {
      throw counters.failure(
          Kind.SHORTAGE,
          s,
          read.partition(),
          "this task could not get READ buffers: " + f.cause().getMessage(),
          f.cause());
    }
    if (f.refusedByOwner()) {
      // withdrawn (the owner deregistered it to make room, or restarted): ask where it is now
      locates.relocate(read, f.cause());
      return;
    }
    throw counters.failure(
        Kind.ofTransportFailure(f.cause()),
        s,
        read.partition(),
        "READ from " + s.owner().address() + " failed: " + f.cause().getMessage(),
        f.cause());
  }
}
