/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * How many blocks of each source a {@link BlockFetcher} still owes its consumer (one per wanted
 * partition, empty ones too), so the fetcher never answers "no more blocks" while one was neither
 * handed over nor failed, and never hands one over twice. Either would be a defect of the fetcher
 * (one lost blocks once: a failure kept while dispatching was taken for the end); the task then
 * fails with what is missing, rather than end without data or with data twice. Under the fetcher's
 * lock.
 */
final class BlockLedger {
  /** Sources named in the error when blocks are missing. */
  private static final int NAMED = 3;

  private final Map<BlockSource, int[]> owed = new IdentityHashMap<>();

  /** The consumer is owed every block of {@code s}. */
  void expect(BlockSource s) {
    owed.computeIfAbsent(s, k -> new int[1])[0] += s.partitions().length;
  }

  /**
   * A block of {@code s} was handed over.
   *
   * @throws IllegalStateException when no block of {@code s} was owed
   */
  void handedOver(BlockSource s) {
    int[] left = owed.get(s);
    if (left == null) {
      throw new IllegalStateException(
          "internal error: a block of " + s + " was handed over beyond those wanted");
    }
    if (--left[0] == 0) {
      owed.remove(s);
    }
  }

  /** Blocks owed now. */
  long owed() {
    long n = 0;
    for (int[] left : owed.values()) {
      n += left[0];
    }
    return n;
  }

  /**
   * Called when nothing is left to read or locate.
   *
   * @throws IllegalStateException naming the sources whose blocks never came
   */
  void checkNothingOwed() {
    if (owed.isEmpty()) {
      return;
    }
    StringBuilder b = new StringBuilder("internal error: ");
    b.append(owed()).append(" blocks were neither read nor failed, of ");
    Iterator<Map.Entry<BlockSource, int[]>> it = owed.entrySet().iterator();
    for (int i = 0; i < NAMED && it.hasNext(); i++) {
      Map.Entry<BlockSource, int[]> e = it.next();
      b.append(i == 0 ? "" : ", ").append(e.getValue()[0]).append(" of ").append(e.getKey());
    }
    if (owed.size() > NAMED) {
      b.append(" and ").append(owed.size() - NAMED).append(" more map outputs");
    }
    throw new IllegalStateException(
        b.append(": the task fails rather than end without them").toString());
  }
}
