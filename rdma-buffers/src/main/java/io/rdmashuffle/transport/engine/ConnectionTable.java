/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Finds a connection from the 32-bit key carried in its work request ids, without allocating: a key
 * is {@code generation << 16 | index}. An index is reused after its connection was removed, with
 * the next generation, so a late completion of a removed connection never finds its successor.
 *
 * <p>Adding and removing are synchronized; {@link #get} may run on any thread without a lock.
 */
public final class ConnectionTable<T> {
  /** Keys have 16 bits of index; the top index stays unused so no key is -1. */
  public static final int MAX_CAPACITY = 1 << 15;

  private final AtomicReferenceArray<T> entries;
  private final AtomicIntegerArray keys;
  private final int[] free;
  private int freeCount;

  public ConnectionTable(int capacity) {
    if (capacity <= 0 || capacity > MAX_CAPACITY) {
      throw new IllegalArgumentException(
          "capacity=" + capacity + ": must be in [1, " + MAX_CAPACITY + "]");
    }
    entries = new AtomicReferenceArray<>(capacity);
    keys = new AtomicIntegerArray(capacity);
    free = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      free[i] = capacity - 1 - i;
      keys.set(i, i);
    }
    freeCount = capacity;
  }

  public int capacity() {
    return entries.length();
  }

  /** Adds {@code value}; returns its key, or -1 when the table is full. */
  public synchronized int add(T value) {
    if (freeCount == 0) {
      return -1;
    }
    int i = free[--freeCount];
    entries.set(i, value);
    return keys.get(i);
  }

  /** Removes the entry of {@code key} if it is still there. */
  public synchronized void remove(int key) {
    int i = key & 0xffff;
    if (i >= keys.length() || keys.get(i) != key) {
      return;
    }
    keys.set(i, (((key >>> 16) + 1) & 0xffff) << 16 | i); // next generation
    entries.set(i, null);
    free[freeCount++] = i;
  }

  /** The entry of {@code key}, or null when it was removed (or never added). */
  public T get(int key) {
    int i = key & 0xffff;
    if (i >= keys.length() || keys.get(i) != key) {
      return null;
    }
    T value = entries.get(i);
    // remove() changes the key before it clears the entry: the key read again after the entry
    // tells whether that entry still belongs to this key
    return keys.get(i) == key ? value : null;
  }

  /** The entry at {@code index} (0 to capacity - 1), or null; for walks over every connection. */
  public T at(int index) {
    return entries.get(index);
  }
}
