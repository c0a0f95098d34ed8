/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.metrics;

import io.rdmashuffle.memory.MemoryAccounting;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one process's transport: bytes and READs completed, failures by kind, READ
 * latency, registered memory, transport fallbacks, connections and calls the connection server
 * refused or dropped, by bound. Recording is lock-free and allocation-free. Engine adapters read
 * {@link #snapshot()} into Spark metrics and Hadoop counters.
 */
public final class TransportMetrics {
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder readsCompleted = new LongAdder();
  private final LongAdder bytesServed = new LongAdder();
  private final LongAdder readsServed = new LongAdder();
  private final EnumMap<FailureKind, LongAdder> failures = new EnumMap<>(FailureKind.class);
  private final EnumMap<Refusal, LongAdder> refusals = new EnumMap<>(Refusal.class);
  private final LongAdder fallbacks = new LongAdder();
  private final LongAdder listenerErrors = new LongAdder();
  private final LongAdder engineErrors = new LongAdder();
  private final LongAdder readTargetsLeaked = new LongAdder();
  private final LongAdder queuePairsLeaked = new LongAdder();
  private final LongAdder servedProbes = new LongAdder();
  private final LongAdder servedPeersLost = new LongAdder();
  private final LatencyHistogram latency = new LatencyHistogram();
  private final MemoryAccounting memory;

  public TransportMetrics(MemoryAccounting memory) {
    this.memory = memory;
    for (FailureKind k : FailureKind.values()) {
      failures.put(k, new LongAdder());
    }
    for (Refusal r : Refusal.values()) {
      refusals.put(r, new LongAdder());
    }
  }

  public TransportMetrics() {
    this(new MemoryAccounting());
  }

  public void readCompleted(int bytes, long latencyNanos) {
    bytesRead.add(bytes);
    readsCompleted.increment();
    latency.recordNanos(latencyNanos);
  }

  public void readServed(int bytes) {
    bytesServed.add(bytes);
    readsServed.increment();
  }

  public void failure(FailureKind kind) {
    failures.get(kind).increment();
  }

  /** The connection server refused or dropped a connection or a call, for {@code why}. */
  public void refused(Refusal why) {
    refusals.get(why).increment();
  }

  public long refusals(Refusal why) {
    return refusals.get(why).sum();
  }

  /** A transport the configuration preferred could not run and another was used instead. */
  public void fallback() {
    fallbacks.increment();
  }

  /** A READ listener threw on a transport thread (a bug in the caller; logged). */
  public void listenerError() {
    listenerErrors.increment();
  }

  public long listenerErrors() {
    return listenerErrors.sum();
  }

  /** The transport's own engine failed a round (logged; the engine goes on). */
  public void engineError() {
    engineErrors.increment();
  }

  public long engineErrors() {
    return engineErrors.sum();
  }

  /**
   * A READ's target was never released because the device might still write into it (its queue pair
   * could be neither destroyed nor flushed): memory leaked on purpose, never reused.
   */
  public void readTargetLeaked() {
    readTargetsLeaked.increment();
  }

  public long readTargetsLeaked() {
    return readTargetsLeaked.sum();
  }

  /** A queue pair could not be destroyed and was left to the process. */
  public void queuePairLeaked() {
    queuePairsLeaked.increment();
  }

  public long queuePairsLeaked() {
    return queuePairsLeaked.sum();
  }

  /** A served queue pair's reader answered a liveness probe. */
  public void servedProbeAnswered() {
    servedProbes.increment();
  }

  public long servedProbesAnswered() {
    return servedProbes.sum();
  }

  /**
   * A served queue pair was dropped because its reader no longer answered (its host vanished
   * without disconnecting).
   */
  public void servedPeerLost() {
    servedPeersLost.increment();
  }

  public long servedPeersLost() {
    return servedPeersLost.sum();
  }

  public long bytesRead() {
    return bytesRead.sum();
  }

  public long readsCompleted() {
    return readsCompleted.sum();
  }

  public long bytesServed() {
    return bytesServed.sum();
  }

  public long readsServed() {
    return readsServed.sum();
  }

  public long failures(FailureKind kind) {
    return failures.get(kind).sum();
  }

  public long fallbacks() {
    return fallbacks.sum();
  }

  public LatencyHistogram readLatency() {
    return latency;
  }

  /** Registered bytes and regions of this transport's registrar. */
  public MemoryAccounting memory() {
    return memory;
  }

  /** Every counter by a stable name, for engine adapters and the doctor command. */
  public Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("bytesRead", bytesRead());
    m.put("readsCompleted", readsCompleted());
    m.put("bytesServed", bytesServed());
    m.put("readsServed", readsServed());
    for (FailureKind k : FailureKind.values()) {
      m.put("failures." + camel(k.name()), failures(k));
    }
    for (Refusal r : Refusal.values()) {
      m.put("server." + camel(r.name()), refusals(r));
    }
    m.put("readLatencyP50Micros", latency.percentileMicros(0.50));
    m.put("readLatencyP99Micros", latency.percentileMicros(0.99));
    m.put("registeredBytes", memory.registeredBytes());
    m.put("registeredRegions", memory.registeredRegions());
    m.put("registeredPinnedBytes", memory.pinnedBytes());
    m.put("registeredOnDemandBytes", memory.onDemandBytes());
    m.put("transportFallbacks", fallbacks());
    m.put("listenerErrors", listenerErrors());
    m.put("engineErrors", engineErrors());
    m.put("readTargetsLeaked", readTargetsLeaked());
    m.put("queuePairsLeaked", queuePairsLeaked());
    m.put("servedProbesAnswered", servedProbesAnswered());
    m.put("servedPeersLost", servedPeersLost());
    return m;
  }

  private static String camel(String constant) {
    StringBuilder sb = new StringBuilder();
    boolean up = false;
    for (char c : constant.toLowerCase(Locale.ROOT).toCharArray()) {
      if (c == '_') {
        up = true;
      } else {
        sb.append(up ? Character.toUpperCase(c) : c);
        up = false;
      }
    }
    return sb.toString();
  }
}
