/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import io.rdmashuffle.transport.ReadOp;

/**
 * The READs posted on one connection and not yet ended, in posting order. A reliable connection
 * completes its work requests in the order they were posted, so a ring is the whole table: a READ
 * is added at the tail, and a completion that names one READ ends every READ from the head up to
 * it.
 *
 * <p>Each READ gets a sequence number (its position in the connection's history); the low 32 bits
 * travel in the work request id. {@link #sequenceOf} turns those bits back into a READ in flight,
 * or says that none matches (a completion of a READ already ended: late or duplicate).
 *
 * <p>Not thread-safe: its connection guards it with the connection's lock. Allocation-free after
 * construction.
 */
public final class WorkRequestRing {
  private final ReadOp[] ops;
  private final long[] postedAt;
  private final int capacity;

  /** Sequence number of the oldest READ in flight. */
  private long head;

  /** Sequence number the next READ gets. */
  private long tail;

  public WorkRequestRing(int capacity) {
    this(capacity, 0);
  }

  /** A ring whose first READ gets {@code firstSequence} (tests of the 32-bit wrap). */
  WorkRequestRing(int capacity, long firstSequence) {
    this.head = firstSequence;
    this.tail = firstSequence;
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity=" + capacity + ": must be positive");
    }
    this.capacity = capacity;
    this.ops = new ReadOp[capacity];
    this.postedAt = new long[capacity];
  }

  public int capacity() {
    return capacity;
  }

  public int size() {
    return (int) (tail - head);
  }

  public boolean isEmpty() {
    return tail == head;
  }

  /**
   * Adds a READ posted at {@code nanos}; returns its sequence number.
   *
   * @throws IllegalStateException when the ring is full (the caller's bounds are broken)
   */
  public long add(ReadOp op, long nanos) {
    if (size() == capacity) {
      throw new IllegalStateException("work request ring full: capacity=" + capacity);
    }
    int i = index(tail);
    ops[i] = op;
    postedAt[i] = nanos;
    return tail++;
  }

  /**
   * The sequence number of the READ in flight whose low 32 bits are {@code low}, or -1 when no READ
   * in flight has them.
   */
  public long sequenceOf(int low) {
    long distance = (low - (int) head) & 0xffff_ffffL;
    return distance < size() ? head + distance : -1;
  }

  /** Sequence number of the oldest READ in flight (meaningless when empty). */
  public long oldestSequence() {
    return head;
  }

  /** When the oldest READ in flight was posted; call only when not empty. */
  public long oldestPostedAt() {
    return postedAt[index(head)];
  }

  /** The oldest READ in flight; call only when not empty. */
  public ReadOp oldest() {
    return ops[index(head)];
  }

  /** Removes and returns the oldest READ in flight; call only when not empty. */
  public ReadOp removeOldest() {
    if (isEmpty()) {
      throw new IllegalStateException("work request ring is empty");
    }
    int i = index(head);
    ReadOp op = ops[i];
    ops[i] = null;
    head++;
    return op;
  }

  private int index(long sequence) {
    return (int) Long.remainderUnsigned(sequence, capacity);
  }
}
