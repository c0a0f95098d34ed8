/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

/**
 * One registered chunk of a {@link BufferPool}: carved into equal slots for one size class at a
 * time, or (a huge chunk) lent whole as one buffer. Guarded by its pool's lock.
 */
final class Chunk {
  final RegisteredRegion region;
  final int length;
  int sizeClass = -1;
  PooledBuffer[] slots;
  int[] freeSlots;
  int freeCount;

  Chunk(RegisteredRegion region, int length) {
    this.region = region;
    this.length = length;
  }

  boolean huge() {
    return slots == null && sizeClass == -2;
  }

  /**
   * Carves this chunk into slots of {@code slotSize} bytes for size class {@code cls}, all free.
   */
  void carve(BufferPool pool, int cls, int slotSize) {
    int n = length / slotSize;
    sizeClass = cls;
    slots = new PooledBuffer[n];
    freeSlots = new int[n];
    for (int i = 0; i < n; i++) {
      slots[i] = new PooledBuffer(pool, this, i, region, i * slotSize, slotSize);
      freeSlots[i] = n - 1 - i;
    }
    freeCount = n;
  }
}
