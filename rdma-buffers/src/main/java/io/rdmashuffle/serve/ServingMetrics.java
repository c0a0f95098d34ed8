/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.counters.CounterSet;
import io.rdmashuffle.mapoutput.LocateAnswer;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the serving side of one process did with the map outputs it serves: registrations (and how
 * many were of outputs evicted before: re-registrations), their time, evictions, requests by
 * outcome, and what is registered now, each declared once in {@link ServingCounter}. Lock-free;
 * engines publish {@link #snapshot()} beside the transport's counters.
 */
public final class ServingMetrics {
  private final CounterSet<ServingCounter> counters = new CounterSet<>(ServingCounter.class);
  // nanoseconds, exported in micros
  private final LongAdder registrationNanos = new LongAdder();
  private final LongAdder waitNanos = new LongAdder();
  private final AtomicLong openOutputs = new AtomicLong();
  private final AtomicLong pinnedBytes = new AtomicLong();

  void registered(long nanos, boolean again) {
    counters.increment(ServingCounter.REGISTRATIONS);
    registrationNanos.add(nanos);
    if (again) {
      counters.increment(ServingCounter.RE_REGISTRATIONS);
    }
  }

  void evicted() {
    counters.increment(ServingCounter.EVICTIONS);
  }

  /** A locate waited {@code nanos} for room (every output that could go was leased). */
  void waited(long nanos) {
    counters.increment(ServingCounter.WAITS);
    waitNanos.add(nanos);
  }

  /** A waiting locate gave its place in the full line to an older reader's. */
  void displaced() {
    counters.increment(ServingCounter.DISPLACED);
  }

  /** Readers released {@code n} leases. */
  void released(int n) {
    counters.add(ServingCounter.RELEASES, n);
  }

  /** Locates that waited for room. */
  public long waits() {
    return counters.sum(ServingCounter.WAITS);
  }

  /** Leases readers released (the rest timed out). */
  public long releases() {
    return counters.sum(ServingCounter.RELEASES);
  }

  void answered(LocateAnswer.Status status) {
    counters.increment(ServingCounter.of(status));
  }

  void holding(long outputs, long pinned) {
    openOutputs.set(outputs);
    pinnedBytes.set(pinned);
  }

  /** Map outputs located for readers (answered OK). */
  public long located() {
    return counters.sum(ServingCounter.LOCATED);
  }

  public long registrations() {
    return counters.sum(ServingCounter.REGISTRATIONS);
  }

  /** Registrations of outputs that had been registered and evicted before. */
  public long reRegistrations() {
    return counters.sum(ServingCounter.RE_REGISTRATIONS);
  }

  public long evictions() {
    return counters.sum(ServingCounter.EVICTIONS);
  }

  /** Map outputs registered now (each holds an open file and its mappings). */
  public long openOutputs() {
    return openOutputs.get();
  }

  /** Bytes of map outputs registered and pinned now. */
  public long pinnedBytes() {
    return pinnedBytes.get();
  }

  /** Every counter by its declared name ({@link ServingCounter}). */
  public Map<String, Long> snapshot() {
    return counters.snapshot(this::value);
  }

  /** A counter's value now: times in micros, the gauges as last set, the others their adder. */
  public long value(ServingCounter c) {
    return switch (c) {
      case REGISTRATION_MICROS -> registrationNanos.sum() / 1000;
      case WAIT_MICROS -> waitNanos.sum() / 1000;
      case OPEN_OUTPUTS -> openOutputs.get();
      case PINNED_BYTES -> pinnedBytes.get();
      default -> counters.sum(c);
    };
  }
}
