/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.transport.ReadOp;

/**
 * READs a channel took out of its work request ring under its lock, for the agent to release and
 * deliver after the lock is dropped (listeners run without any engine lock held). Owned and reused
 * by the agent thread.
 */
final class EndedReads {
  private final ReadOp[] ops;
  private final long[] postedAt;
  private int count;

  EndedReads(int capacity) {
    ops = new ReadOp[capacity];
    postedAt = new long[capacity];
  }

  void add(ReadOp op, long postedNanos) {
    ops[count] = op;
    postedAt[count] = postedNanos;
    count++;
  }

  int count() {
    return count;
  }

  ReadOp op(int i) {
    return ops[i];
  }

  long postedAt(int i) {
    return postedAt[i];
  }

  void clear() {
    for (int i = 0; i < count; i++) {
      ops[i] = null;
    }
    count = 0;
  }
}
