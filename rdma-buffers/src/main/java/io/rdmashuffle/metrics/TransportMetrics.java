/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.metrics;

import io.rdmashuffle.counters.CounterSet;
import io.rdmashuffle.memory.MemoryAccounting;
import java.util.Map;

/**
 * The counters of one process's transport: bytes and READs completed, failures by kind, READ
 * latency, registered memory, transport fallbacks, connections and calls the connection server
 * refused or dropped, by bound, each declared once in {@link TransportCounter}. Recording is
 * lock-free and allocation-free. Engine adapters read {@link #snapshot()} into Spark metrics and
 * Hadoop counters.
 */
public final class TransportMetrics {
  private final CounterSet<TransportCounter> counters = new CounterSet<>(TransportCounter.class);
  private final LatencyHistogram latency = new LatencyHistogram();
  private final MemoryAccounting memory;

  public TransportMetrics(MemoryAccounting memory) {
    this.memory = memory;
  }

  public TransportMetrics() {
    this(new MemoryAccounting());
  }

  public void readCompleted(int bytes, long latencyNanos) {
    counters.add(TransportCounter.BYTES_READ, bytes);
    counters.increment(TransportCounter.READS_COMPLETED);
    latency.recordNanos(latencyNanos);
  }

  public void readServed(int bytes) {
    counters.add(TransportCounter.BYTES_SERVED, bytes);
    counters.increment(TransportCounter.READS_SERVED);
  }

  public void failure(FailureKind kind) {
    counters.increment(TransportCounter.of(kind));
  }

  /** The connection server refused or dropped a connection or a call, for {@code why}. */
  public void refused(Refusal why) {
    counters.increment(TransportCounter.of(why));
  }

  public long refusals(Refusal why) {
    return counters.sum(TransportCounter.of(why));
  }

  /** A transport the configuration preferred could not run and another was used instead. */
  public void fallback() {
    counters.increment(TransportCounter.TRANSPORT_FALLBACKS);
  }

  /** A READ listener threw on a transport thread (a bug in the caller; logged). */
  public void listenerError() {
    counters.increment(TransportCounter.LISTENER_ERRORS);
  }

  public long listenerErrors() {
    return counters.sum(TransportCounter.LISTENER_ERRORS);
  }

  /** The transport's own engine failed a round (logged; the engine goes on). */
  public void engineError() {
    counters.increment(TransportCounter.ENGINE_ERRORS);
  }

  public long engineErrors() {
    return counters.sum(TransportCounter.ENGINE_ERRORS);
  }

  /**
   * A READ's target was never released because the device might still write into it (its queue pair
   * could be neither destroyed nor flushed): memory leaked on purpose, never reused.
   */
  public void readTargetLeaked() {
    counters.increment(TransportCounter.READ_TARGETS_LEAKED);
  }

  public long readTargetsLeaked() {
    return counters.sum(TransportCounter.READ_TARGETS_LEAKED);
  }

  /** A queue pair could not be destroyed and was left to the process. */
  public void queuePairLeaked() {
    counters.increment(TransportCounter.QUEUE_PAIRS_LEAKED);
  }

  public long queuePairsLeaked() {
    return counters.sum(TransportCounter.QUEUE_PAIRS_LEAKED);
  }

  /** A served queue pair's reader answered a liveness probe. */
  public void servedProbeAnswered() {
    counters.increment(TransportCounter.SERVED_PROBES_ANSWERED);
  }

  public long servedProbesAnswered() {
    return counters.sum(TransportCounter.SERVED_PROBES_ANSWERED);
  }

  /**
   * A served queue pair was dropped because its reader no longer answered (its host vanished
   * without disconnecting).
   */
  public void servedPeerLost() {
    counters.increment(TransportCounter.SERVED_PEERS_LOST);
  }

  public long servedPeersLost() {
    return counters.sum(TransportCounter.SERVED_PEERS_LOST);
  }

  public long bytesRead() {
    return counters.sum(TransportCounter.BYTES_READ);
  }

  public long readsCompleted() {
    return counters.sum(TransportCounter.READS_COMPLETED);
  }

  public long bytesServed() {
    return counters.sum(TransportCounter.BYTES_SERVED);
  }

  public long readsServed() {
    return counters.sum(TransportCounter.READS_SERVED);
  }

  public long failures(FailureKind kind) {
    return counters.sum(TransportCounter.of(kind));
  }

  public long fallbacks() {
    return counters.sum(TransportCounter.TRANSPORT_FALLBACKS);
  }

  public LatencyHistogram readLatency() {
    return latency;
  }

  /** Registered bytes and regions of this transport's registrar. */
  public MemoryAccounting memory() {
    return memory;
  }

  /**
   * Every counter by its declared name ({@link TransportCounter}), for engine adapters and the
   * doctor command.
   */
  public Map<String, Long> snapshot() {
    return counters.snapshot(this::value);
  }

  /** A counter's value now: the gauges read latency and memory, the others their adder. */
  public long value(TransportCounter c) {
    return switch (c) {
      case READ_LATENCY_P50_MICROS -> latency.percentileMicros(0.50);
      case READ_LATENCY_P99_MICROS -> latency.percentileMicros(0.99);
      case REGISTERED_BYTES -> memory.registeredBytes();
      case REGISTERED_REGIONS -> memory.registeredRegions();
      case REGISTERED_PINNED_BYTES -> memory.pinnedBytes();
      case REGISTERED_ON_DEMAND_BYTES -> memory.onDemandBytes();
      default -> counters.sum(c);
    };
  }
}
