/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every time rdma-shuffle hands work to Spark's stock shuffle: counted by cause, and logged once
 * per process for each cause, with the detail of its first occurrence (never silent, never a flood:
 * details such as file paths differ from task to task, so they are not part of the key).
 * Thread-safe; one per process.
 */
final class FallbackLog {
  private static final Logger LOG = LoggerFactory.getLogger(FallbackLog.class);

  /** Why work went to the stock shuffle. */
  public enum Cause {
    /** The operator switched rdma-shuffle off. */
    DISABLED,
    /** No transport can start on this node (forced transport unavailable, port taken...). */
    TRANSPORT_UNAVAILABLE,
    /** A committed map output could not be registered; it is served the stock way. */
    PUBLISH_FAILED,
    /** A reduce task found map outputs without our marker and read them the stock way. */
    UNPUBLISHED_MAP_OUTPUT,
    /** A reduce task read map outputs served over a transport it does not run. */
    OTHER_TRANSPORT,
    /** Spark encrypts network traffic and our transport does not: the stock shuffle does it. */
    NETWORK_ENCRYPTION
  }

  private final EnumMap<Cause, LongAdder> counts = new EnumMap<>(Cause.class);

  /** Causes logged already; never more entries than causes. */
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  FallbackLog() {
    for (Cause c : Cause.values()) {
      counts.put(c, new LongAdder());
    }
  }

  /**
   * Counts one fallback; logs it when this cause and detail were not logged before.
   *
   * @param what what fell back, e.g. "shuffle 3"
   */
  void record(Cause cause, String what, String detail) {
    counts.get(cause).increment();
    if (logged.add(cause.name())) {
      LOG.warn(
          "rdma-shuffle: {} uses Spark's stock sort shuffle ({}): {}"
              + " (logged once per cause; counted as {})",
          what,
          cause.name().toLowerCase(Locale.ROOT),
          detail,
          counter(cause).exportName());
    }
  }

  long count(Cause cause) {
    return counts.get(cause).sum();
  }

  long total() {
    return counts.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /**
   * Counts by their declared names ({@code fallbacks.transportUnavailable}, ...: {@link
   * SparkCounter}).
   */
  Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (SparkCounter c : SparkCounter.values()) {
      if (c.cause() != null) {
        m.put(c.exportName(), count(c.cause()));
      }
    }
    return m;
  }

  /** The counter of fallbacks for {@code cause}. */
  static SparkCounter counter(Cause cause) {
    for (SparkCounter c : SparkCounter.values()) {
      if (c.cause() == cause) {
        return c;
      }
    }
    throw new IllegalStateException("no counter declared for " + cause);
  }
}
