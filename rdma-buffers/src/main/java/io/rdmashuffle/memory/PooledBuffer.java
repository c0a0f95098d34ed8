/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.nio.ByteBuffer;

/**
 * A registered buffer lent by a {@link BufferPool}: a slice of a registered chunk (or a
 * registration of its own when larger than a chunk), reference counted. The pool creates one handle
 * per slice and reuses it, so lending a buffer makes no garbage (a tracking pool lends a fresh
 * handle each time instead: see {@link BufferPool}).
 *
 * <p>One owner at a time: the borrower holds the first reference; a READ into the buffer holds its
 * region (not the buffer) while in flight. {@link #release()} by the last holder returns the buffer
 * to the pool; using it afterwards is a bug. A release more than was retained throws and changes
 * nothing, even while the pool lends the buffer again (see {@link RefCounted}).
 */
public final class PooledBuffer extends CountedResource<PooledBuffer> {
  final BufferPool pool;
  final Chunk chunk;
  final int slot;
  private final RegisteredRegion region;
  private final int regionOffset;
  private final int capacity;
  private final ByteBuffer view;
  private int size;

  /** Follows this lend in a tracking pool; guarded by the pool's lock. */
  LeakDetector.Tracker tracker;

  PooledBuffer(
      BufferPool pool,
      Chunk chunk,
      int slot,
      RegisteredRegion region,
      int regionOffset,
      int capacity) {
    super(RefCount.freed("pooled buffer"));
    this.pool = pool;
    this.chunk = chunk;
    this.slot = slot;
    this.region = region;
    this.regionOffset = regionOffset;
    this.capacity = capacity;
    ByteBuffer whole = region.memory().buffer().duplicate();
    whole.limit(regionOffset + capacity).position(regionOffset);
    this.view = whole.slice();
  }

  void lend(int requested) {
    this.size = requested;
    refs().revive();
    view.clear().limit(requested);
  }

  /** The registered region this buffer lies in; READs target {@code (region, regionOffset)}. */
  public RegisteredRegion region() {
    return region;
  }

  /** Where this buffer starts in {@link #region()}. */
  public int regionOffset() {
    return regionOffset;
  }

  /** Bytes asked for when it was lent. */
  public int size() {
    return size;
  }

  /** Bytes it really has (its size class). */
  public int capacity() {
    return capacity;
  }

  /**
   * The buffer's memory, position 0 and limit {@link #size()} when lent. The same object is
   * returned every time; the borrower may change its position and limit.
   */
  public ByteBuffer buffer() {
    return view;
  }

  /** The last reference given back: the buffer returns to its pool. */
  @Override
  protected void lastReleased() {
    pool.recycle(this);
  }
}
