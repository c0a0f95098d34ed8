/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.counters;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * One lock-free adder per declared counter of the group {@code E}, in declaration order. Recording
 * is allocation-free; {@link #snapshot} names every counter by its {@link
 * CounterDescriptor#exportName()}.
 */
public final class CounterSet<E extends Enum<E> & CounterDescriptor> {
  private final E[] declared;
  private final LongAdder[] adders;

  public CounterSet(Class<E> group) {
    this.declared = group.getEnumConstants();
    this.adders = new LongAdder[declared.length];
    for (int i = 0; i < adders.length; i++) {
      adders[i] = new LongAdder();
    }
  }

  public void increment(E counter) {
    adders[counter.ordinal()].increment();
  }

  public void add(E counter, long n) {
    adders[counter.ordinal()].add(n);
  }

  public long sum(E counter) {
    return adders[counter.ordinal()].sum();
  }

  /** Every declared counter by its exported name, each read by {@link #sum}. */
  public Map<String, Long> snapshot() {
    return snapshot(this::sum);
  }

  /**
   * Every declared counter by its exported name, in declaration order, each read by {@code value}
   * (for the group's gauges and derived values; {@link #sum} for the others).
   */
  public Map<String, Long> snapshot(ToLongFunction<E> value) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (E c : declared) {
      m.put(c.exportName(), value.applyAsLong(c));
    }
    return m;
  }
}
