/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.OutputId;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Which readers hold a lease on which registered outputs, and until when. A leased output is not
 * evicted to make room: a reader that located it READs it without being told to ask again. A lease
 * ends when its reader releases it or when it times out (a reader that died, or one that never
 * releases). Not thread-safe: every call is made under the catalog's lock.
 */
final class Leases {
  /** Per output: reader to the time (nanos) its lease ends. */
  private final Map<OutputId, Map<Long, Long>> byOutput = new HashMap<>();

  /** Leases {@code id} to {@code reader} until {@code until} (nanos), or renews it. */
  void lease(OutputId id, long reader, long until) {
    byOutput.computeIfAbsent(id, k -> new HashMap<>(2)).merge(reader, until, Math::max);
  }

  /** Ends {@code reader}'s lease of {@code id}; returns whether it held one. */
  boolean release(OutputId id, long reader) {
    Map<Long, Long> readers = byOutput.get(id);
    if (readers == null || readers.remove(reader) == null) {
      return false;
    }
    if (readers.isEmpty()) {
      byOutput.remove(id);
    }
    return true;
  }

  /** Whether a lease of {@code id} is still running at {@code now}; expired ones are dropped. */
  boolean isLeased(OutputId id, long now) {
    Map<Long, Long> readers = byOutput.get(id);
    if (readers == null) {
      return false;
    }
    for (Iterator<Long> it = readers.values().iterator(); it.hasNext(); ) {
      if (it.next() - now <= 0) {
        it.remove();
      }
    }
    if (readers.isEmpty()) {
      byOutput.remove(id);
      return false;
    }
    return true;
  }

  /** Forgets every lease of {@code id} (it was deregistered). */
  void drop(OutputId id) {
    byOutput.remove(id);
  }

  /** Outputs with a lease (running or not yet found expired). */
  int outputs() {
    return byOutput.size();
  }
}
