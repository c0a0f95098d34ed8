/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The served regions of one tcp transport, by rkey, as a NIC keeps its memory regions: the low
 * {@value #INDEX_BITS} bits of an rkey index a slot, the high bits carry the slot's generation,
 * bumped at every reuse, so a stale rkey of a deregistered region never finds its successor. Freed
 * slots are reused oldest first. Lookups are lock-free (two volatile reads).
 */
final class TcpRegionTable {
  static final int INDEX_BITS = 20;
  static final int INDEX_MASK = (1 << INDEX_BITS) - 1;
  static final int MAX_REGIONS = 1 << INDEX_BITS;

  private volatile AtomicReferenceArray<TcpRegion> slots = new AtomicReferenceArray<>(256);
  private int[] generations = new int[256];
  private final ArrayDeque<Integer> free = new ArrayDeque<>();
  private int next;
  private final int seed = new SecureRandom().nextInt();

  /** Reserves a slot and returns the rkey the region placed there will have. */
  synchronized int reserve() {
    int index;
    if (free.size() > 64 || (next == MAX_REGIONS && !free.isEmpty())) {
      index = free.pollFirst();
    } else if (next < MAX_REGIONS) {
      index = next++;
      if (index >= generations.length) {
        generations = Arrays.copyOf(generations, generations.length * 2);
        AtomicReferenceArray<TcpRegion> grown = new AtomicReferenceArray<>(generations.length);
        for (int i = 0; i < slots.length(); i++) {
          grown.set(i, slots.get(i));
        }
        slots = grown;
      }
      generations[index] = seed + index * 0x9E3779B9;
    } else {
      throw new IllegalStateException("more than " + MAX_REGIONS + " regions registered");
    }
    int generation = ++generations[index];
    return (generation << INDEX_BITS) | index;
  }

  synchronized void publish(int rkey, TcpRegion region) {
    slots.set(rkey & INDEX_MASK, region);
  }

  /** Withdraws the region with this rkey (if it is still there); its slot becomes reusable. */
  synchronized void remove(int rkey) {
    int index = rkey & INDEX_MASK;
    AtomicReferenceArray<TcpRegion> s = slots;
    if (index < s.length() && s.get(index) != null && s.get(index).rkey() == rkey) {
      s.set(index, null);
      free.addLast(index);
    }
  }

  /** The region with exactly this rkey, or null. */
  TcpRegion lookup(int rkey) {
    int index = rkey & INDEX_MASK;
    AtomicReferenceArray<TcpRegion> s = slots;
    if (index >= s.length()) {
      return null;
    }
    TcpRegion r = s.get(index);
    return r != null && r.rkey() == rkey ? r : null;
  }
}
