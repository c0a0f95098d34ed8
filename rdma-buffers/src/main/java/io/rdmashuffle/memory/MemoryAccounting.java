/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Registered bytes and regions of one registrar, counted at registration and at deregistration.
 * Tests compare them before and after a workload; engine adapters publish them as gauges.
 */
public final class MemoryAccounting {
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong regions = new AtomicLong();

  /** The part of {@link #bytes} registered with on-demand paging (not pinned). */
  private final AtomicLong onDemandBytes = new AtomicLong();

  public void registered(long length) {
    bytes.addAndGet(length);
    regions.incrementAndGet();
  }

  public void deregistered(long length) {
    bytes.addAndGet(-length);
    regions.decrementAndGet();
  }

  /** A region registered with on-demand paging: counted in the total, but not pinned. */
  public void registeredOnDemand(long length) {
    registered(length);
    onDemandBytes.addAndGet(length);
  }

  public void deregisteredOnDemand(long length) {
    deregistered(length);
    onDemandBytes.addAndGet(-length);
  }

  /** Registered bytes whose pages are locked in memory (all but the on-demand ones). */
  public long pinnedBytes() {
    return bytes.get() - onDemandBytes.get();
  }

  /** Registered bytes with on-demand paging: the device faults their pages in when READ. */
  public long onDemandBytes() {
    return onDemandBytes.get();
  }

  public long registeredBytes() {
    return bytes.get();
  }

  public long registeredRegions() {
    return regions.get();
  }

  @Override
  public String toString() {
    return "registered "
        + registeredRegions()
        + " regions, "
        + registeredBytes()
        + " bytes ("
        + onDemandBytes()
        + " on demand)";
  }
}
