/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.transport.ReadOp;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The READs one connection has in flight, by slot number (the work request id that travels with a
 * request and comes back with its completion), when each was issued, and the slots issued but not
 * yet handed to the wire, in order. Fixed capacity, allocation-free: slots are arrays and freed
 * slots are reused last-in first-out. Not thread-safe: the owning channel guards it with its state
 * lock.
 */
public final class WorkRequestTable {
  private final int capacity;
  private final ReadOp[] ops;
  private final long[] issuedAt;
  private final int[] free;
  private int freeCount;

  /** Slots added but not yet taken by {@link #nextUnsent()}, as a ring. */
  private final int[] unsent;

  private int unsentHead;
  private int unsentCount;

  public WorkRequestTable(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity=" + capacity + ": must be at least 1");
    }
    this.capacity = capacity;
    this.ops = new ReadOp[capacity];
    this.issuedAt = new long[capacity];
    this.free = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      free[i] = capacity - 1 - i;
    }
    this.freeCount = capacity;
    this.unsent = new int[capacity];
  }

  public int capacity() {
    return capacity;
  }

  /** READs in the table. */
  public int size() {
    return capacity - freeCount;
  }

  public boolean isEmpty() {
    return freeCount == capacity;
  }

  /**
   * Puts {@code op} in a free slot, issued at {@code now}, and queues the slot for sending.
   *
   * @throws IllegalStateException when the table is full (the caller's bounds prevent it)
   */
  public int add(ReadOp op, long now) {
    if (freeCount == 0) {
      throw new IllegalStateException("work request table of " + capacity + " is full");
    }
    int slot = free[--freeCount];
    ops[slot] = op;
    issuedAt[slot] = now;
    unsent[(unsentHead + unsentCount) % capacity] = slot;
    unsentCount++;
    return slot;
  }

  public boolean hasUnsent() {
    return unsentCount > 0;
  }

  /** The oldest slot not yet sent; call only when {@link #hasUnsent()}. */
  public int nextUnsent() {
    int slot = unsent[unsentHead];
    unsentHead = (unsentHead + 1) % capacity;
    unsentCount--;
    return slot;
  }

  /** The READ in {@code slot}, or null when the slot is free or out of range. */
  public ReadOp get(int slot) {
    return slot >= 0 && slot < capacity ? ops[slot] : null;
  }

  public long issuedAt(int slot) {
    return issuedAt[slot];
  }

  /** Frees {@code slot} (which holds a READ) and returns that READ. */
  public ReadOp remove(int slot) {
    ReadOp op = ops[slot];
    ops[slot] = null;
    free[freeCount++] = slot;
    return op;
  }

  /** The READs issued more than {@code timeoutNanos} before {@code now}; empty when none. */
  public Set<ReadOp> overdue(long now, long timeoutNanos) {
    Set<ReadOp> late = Set.of();
    if (isEmpty()) {
      return late;
    }
    for (int slot = 0; slot < capacity; slot++) {
      if (ops[slot] != null && now - issuedAt[slot] > timeoutNanos) {
        if (late.isEmpty()) {
          late = Collections.newSetFromMap(new IdentityHashMap<>());
        }
        late.add(ops[slot]);
      }
    }
    return late;
  }

  /** Empties the table into {@code into} (the channel fails them) and forgets unsent slots. */
  public void removeAll(List<ReadOp> into) {
    for (int slot = 0; slot < capacity; slot++) {
      if (ops[slot] != null) {
        into.add(remove(slot));
      }
    }
    unsentCount = 0;
  }
}
