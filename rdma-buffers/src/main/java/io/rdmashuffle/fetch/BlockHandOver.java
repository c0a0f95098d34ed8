/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The blocks between a {@link BlockFetcher} and its consumer: those ready to be handed over (the
 * queue the fetch's parts fill through {@link FetchContext#ready}), and those handed over that may
 * still be read, so closing the fetcher releases both. A block is checked as it is handed over
 * ({@link Block#verifyBeforeHandOver}). Under the fetcher's lock.
 */
final class BlockHandOver {
  /** Handed-over blocks tracked before released ones are first dropped from the set. */
  static final int PRUNE_AT = 1024;

  /** Blocks ready for the consumer, in the order they became ready. */
  final ArrayDeque<Block> ready = new ArrayDeque<>();

  /**
   * Handed-over blocks, in hand-over order, until found released: a consumer releases them mostly
   * in that order, so those at the head are dropped as each block is handed over, and the rest now
   * and then.
   */
  private final ArrayDeque<Block> open = new ArrayDeque<>();

  /**
   * The size of {@link #open} at which released blocks anywhere in it are next dropped: twice what
   * the last prune left, so a consumer that holds many blocks open costs a prune per doubling, not
   * one per block.
   */
  private int pruneAt = PRUNE_AT;

  /**
   * The next ready block, checked and tracked as handed over, or null when none is ready.
   *
   * @throws BlockFetchException when the block fails its check (it is not handed over)
   */
  Block next() throws BlockFetchException {
    Block b = ready.poll();
    if (b == null) {
      return null;
    }
    b.verifyBeforeHandOver();
    while (!open.isEmpty() && open.peekFirst().isReleased()) {
      open.pollFirst();
    }
    if (open.size() >= pruneAt) {
      open.removeIf(Block::isReleased);
      pruneAt = Math.max(PRUNE_AT, 2 * open.size());
    }
    open.addLast(b);
    return b;
  }

  /** Blocks handed over and tracked (released ones are dropped now and then). */
  int tracked() {
    return open.size();
  }

  /** Releases every block, ready or handed over. */
  void releaseAll() {
    for (Block b : ready) {
      b.release();
    }
    ready.clear();
    for (Block b : new ArrayList<>(open)) {
      b.release();
    }
    open.clear();
  }
}
