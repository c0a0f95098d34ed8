package io.rdmashuffle.memory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Registered bytes and regions of one registrar, counted at registration and at deregistration.
 * Tests compare them before and after a workload; engine adapters publish them as gauges.
 */
public final class MemoryAccounting {
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong regions = new AtomicLong();

  public void registered(long length) {
    bytes.addAndGet(length);
    regions.incrementAndGet();
  }

  public void deregistered(long length) {
    bytes.addAndGet(-length);
    regions.decrementAndGet();
  }

  public long registeredBytes() {
    return bytes.get();
  }

  public long registeredRegions() {
    return regions.get();
  }

  @Override
  public String toString() {
    return "registered " + registeredRegions() + " regions, " + registeredBytes() + " bytes";
  }
}
