/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the serving side of one process did with the map outputs it serves: registrations (and how
 * many were of outputs evicted before: re-registrations), their time, evictions, requests by
 * outcome, and what is registered now. Lock-free; engines publish {@link #snapshot()} beside the
 * transport's counters.
 */
public final class ServingMetrics {
  private final LongAdder registrations = new LongAdder();
  private final LongAdder reRegistrations = new LongAdder();
  private final LongAdder registrationNanos = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder located = new LongAdder();
  private final LongAdder notFound = new LongAdder();
  private final LongAdder refused = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder unavailable = new LongAdder();
  private final LongAdder busy = new LongAdder();
  private final LongAdder deferred = new LongAdder();
  private final LongAdder waits = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  private final LongAdder released = new LongAdder();
  private final AtomicLong openOutputs = new AtomicLong();
  private final AtomicLong pinnedBytes = new AtomicLong();

  void registered(long nanos, boolean again) {
    registrations.increment();
    registrationNanos.add(nanos);
    if (again) {
      reRegistrations.increment();
    }
  }

  void evicted() {
    evictions.increment();
  }

  /** A locate waited {@code nanos} for room (every output that could go was leased). */
  void waited(long nanos) {
    waits.increment();
    waitNanos.add(nanos);
  }

  /** Readers released {@code n} leases. */
  void released(int n) {
    released.add(n);
  }

  /** Locates that waited for room. */
  public long waits() {
    return waits.sum();
  }

  /** Leases readers released (the rest timed out). */
  public long releases() {
    return released.sum();
  }

  void answered(io.rdmashuffle.mapoutput.LocateAnswer.Status status) {
    switch (status) {
      case OK -> located.increment();
      case NOT_FOUND -> notFound.increment();
      case REFUSED -> refused.increment();
      case FAILED -> failed.increment();
      case UNAVAILABLE -> unavailable.increment();
      case BUSY -> busy.increment();
      case DEFERRED -> deferred.increment();
    }
  }

  void holding(long outputs, long pinned) {
    openOutputs.set(outputs);
    pinnedBytes.set(pinned);
  }

  public long registrations() {
    return registrations.sum();
  }

  /** Registrations of outputs that had been registered and evicted before. */
  public long reRegistrations() {
    return reRegistrations.sum();
  }

  public long evictions() {
    return evictions.sum();
  }

  /** Map outputs registered now (each holds an open file and its mappings). */
  public long openOutputs() {
    return openOutputs.get();
  }

  /** Bytes of map outputs registered and pinned now. */
  public long pinnedBytes() {
    return pinnedBytes.get();
  }

  /** Every counter by a stable name. */
  public Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("serve.registrations", registrations.sum());
    m.put("serve.reRegistrations", reRegistrations.sum());
    m.put("serve.registrationMicros", registrationNanos.sum() / 1000);
    m.put("serve.evictions", evictions.sum());
    m.put("serve.located", located.sum());
    m.put("serve.notFound", notFound.sum());
    m.put("serve.refused", refused.sum());
    m.put("serve.failed", failed.sum());
    m.put("serve.unavailable", unavailable.sum());
    m.put("serve.busy", busy.sum());
    m.put("serve.deferred", deferred.sum());
    m.put("serve.waits", waits.sum());
    m.put("serve.waitMicros", waitNanos.sum() / 1000);
    m.put("serve.releases", released.sum());
    m.put("serve.openOutputs", openOutputs.get());
    m.put("serve.pinnedBytes", pinnedBytes.get());
    return m;
  }
}
