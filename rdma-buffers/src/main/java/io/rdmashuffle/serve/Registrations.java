/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.RegisteredFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The outputs an {@link OutputCatalog} holds registered, least recently used first, their leases,
 * and their share of the bounds: open outputs (in all, and per application while more than one
 * holds some), pinned bytes and the heap of their partition tables, counting registrations still in
 * progress (reserved before the transport registers, so concurrent registrations can't overshoot).
 *
 * <p>Making room evicts only outputs no reader holds a lease on, and fairly: the least recently
 * used of the application that holds the most (its own, when an application is at its bound), so
 * one application can't push every other's outputs out of a shared server. Not thread-safe: every
 * call is made under the catalog's lock; closing evicted files is left to the caller, outside the
 * lock.
 */
final class Registrations {
  /** How many evicted outputs are remembered, to count their re-registrations. */
  private static final int EVICTED_MEMORY = 1 << 16;

  /** One registered output. */
  record Registered(OutputId id, RegisteredFile file, PartitionTable table, long pinned) {}

  private final OutputCatalog.Limits limits;
  private final ServingMetrics metrics;
  private final LinkedHashMap<OutputId, Registered> registered =
      new LinkedHashMap<>(64, 0.75f, true);
  private final Leases leases = new Leases();

  /** Registered and reserved outputs per application. */
  private final Map<String, Integer> perApplication = new HashMap<>();

  private final LinkedHashMap<OutputId, Boolean> evicted =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<OutputId, Boolean> eldest) {
          return size() > EVICTED_MEMORY;
        }
      };
  private int open;
  private long pinned;
  private long tables;

  Registrations(OutputCatalog.Limits limits, ServingMetrics metrics) {
    this.limits = limits;
    this.metrics = metrics;
  }

  /** The registered output, now the most recently used; or null. */
  Registered get(OutputId id) {
    return registered.get(id);
  }

  int size() {
    return registered.size();
  }

  /** Registrations reserved or made (what counts against the bound). */
  int counted() {
    return open;
  }

  /**
   * Why an output of {@code length} bytes, pinning {@code pin} and its table taking {@code table}
   * bytes of heap, can never fit however much is evicted (to follow "map output ID"); null when it
   * can.
   */
  String tooLarge(long length, long pin, long table) {
    if (pin > limits.maxPinnedBytes()) {
      return " of "
          + length
          + " bytes exceeds the bound on pinned bytes ("
          + limits.maxPinnedBytes()
          + ")";
    }
    if (table > limits.maxTableBytes()) {
      return " has a partition table of "
          + table
          + " bytes, more than the heap allowed for them (serve.maxTableBytes="
          + limits.maxTableBytes()
          + ")";
    }
    return null;
  }

  /**
   * How full the bounds are, for a "busy" answer: which one the next output did not fit (the
   * registrations counted, their partition tables' heap, their pinned bytes, the application's).
   */
  String fullness(String application) {
    return open
        + " registered (serve.maxOpenOutputs="
        + limits.maxOpenOutputs()
        + "), "
        + application
        + " holding "
        + perApplication.getOrDefault(application, 0)
        + " (serve.maxOpenOutputsPerApplication="
        + limits.maxOpenOutputsPerApplication()
        + " when shared), partition tables of "
        + tables
        + " bytes (serve.maxTableBytes="
        + limits.maxTableBytes()
        + "), "
        + pinned
        + " bytes pinned (serve.maxPinnedBytes="
        + limits.maxPinnedBytes()
        + ")";
  }

  /**
   * Reserves room for one more output of {@code application} pinning {@code pin} bytes, its table
   * taking {@code table} bytes of heap; with {@code evict}, evicting unleased outputs (added to
   * {@code victims}) until it fits.
   *
   * @return false when it does not fit (nothing reserved): every output that could go is leased
   */
  boolean reserve(
      String application, long pin, long table, boolean evict, long now, List<Registered> victims) {
    while (open + 1 > limits.maxOpenOutputs()
        || pinned + pin > limits.maxPinnedBytes()
        || tables + table > limits.maxTableBytes()
        || overApplicationBound(application)) {
      if (!evict) {
        return false;
      }
      Registered v = victim(application, overApplicationBound(application), now);
      if (v == null) {
        return false;
      }
      registered.remove(v.id());
      evicted(v);
      victims.add(v);
    }
    open++;
    pinned += pin;
    tables += table;
    perApplication.merge(application, 1, Integer::sum);
    return true;
  }

  /**
   * Whether one more output of {@code application} passes its bound: on a server other applications
   * use too, {@code maxOpenOutputsPerApplication}; alone, only the total bound.
   */
  private boolean overApplicationBound(String application) {
    int mine = perApplication.getOrDefault(application, 0);
    boolean shared = perApplication.size() > (mine > 0 ? 1 : 0);
    return shared && mine + 1 > limits.maxOpenOutputsPerApplication();
  }

  /**
   * The output to evict: the least recently used unleased one of {@code application} when {@code
   * own}, else of the application that holds the most; null when every candidate is leased.
   */
  private Registered victim(String application, boolean own, long now) {
    Map<String, Registered> oldestUnleased = new HashMap<>();
    for (Registered r : registered.values()) {
      String app = r.id().application();
      if ((own && !app.equals(application)) || oldestUnleased.containsKey(app)) {
        continue;
      }
      if (!leases.isLeased(r.id(), now)) {
        oldestUnleased.put(app, r);
      }
    }
    Registered best = null;
    int most = -1;
    for (Map.Entry<String, Registered> e : oldestUnleased.entrySet()) {
      int n = perApplication.getOrDefault(e.getKey(), 0);
      if (n > most) {
        most = n;
        best = e.getValue();
      }
    }
    return best;
  }

  /** Gives back a reservation of {@code application} whose registration failed or was dropped. */
  void unreserve(String application, long pin, long table) {
    open--;
    pinned -= pin;
    tables -= table;
    perApplication.computeIfPresent(application, (k, n) -> n > 1 ? n - 1 : null);
    metrics.holding(open, pinned);
  }

  /**
   * Adds a registration made under a reservation; {@code nanos} it took. False, adding nothing,
   * when the output is registered already (the caller gives the reservation back and closes its
   * duplicate): an output is never registered twice.
   */
  boolean add(Registered r, long nanos) {
    if (registered.putIfAbsent(r.id(), r) != null) {
      return false;
    }
    metrics.registered(nanos, evicted.remove(r.id()) != null);
    metrics.holding(open, pinned);
    return true;
  }

  /** Leases {@code r} to {@code reader} until {@code until}, if {@code r} is still registered. */
  boolean lease(Registered r, long reader, long until) {
    if (registered.get(r.id()) != r) {
      return false;
    }
    leases.lease(r.id(), reader, until);
    return true;
  }

  /** Ends {@code reader}'s lease of {@code id}; returns whether it held one. */
  boolean release(OutputId id, long reader) {
    return leases.release(id, reader);
  }

  /** Whether a reader holds a lease of {@code id} now (tests). */
  boolean isLeased(OutputId id, long now) {
    return leases.isLeased(id, now);
  }

  /** Removes one output (not as an eviction); returns it, or null when it is not registered. */
  Registered remove(OutputId id) {
    Registered r = registered.remove(id);
    if (r != null) {
      release(r);
    }
    return r;
  }

  /** Removes (not as an eviction) exactly {@code r}, if it is still its output's registration. */
  boolean remove(Registered r) {
    if (!registered.remove(r.id(), r)) {
      return false;
    }
    release(r);
    return true;
  }

  /**
   * Evicts the least recently used unleased output, or returns null when there is none (a
   * registration the transport refused makes room this way).
   */
  Registered evictOne(long now) {
    for (Iterator<Registered> it = registered.values().iterator(); it.hasNext(); ) {
      Registered r = it.next();
      if (!leases.isLeased(r.id(), now)) {
        it.remove();
        evicted(r);
        return r;
      }
    }
    return null;
  }

  /** Removes (not as evictions) the outputs {@code which} selects. */
  List<Registered> removeWhere(Predicate<OutputId> which) {
    List<Registered> gone = new ArrayList<>();
    for (Iterator<Registered> it = registered.values().iterator(); it.hasNext(); ) {
      Registered r = it.next();
      if (which.test(r.id())) {
        it.remove();
        release(r);
        gone.add(r);
      }
    }
    return gone;
  }

  private void evicted(Registered r) {
    release(r);
    evicted.put(r.id(), Boolean.TRUE);
    metrics.evicted();
  }

  private void release(Registered r) {
    leases.drop(r.id());
    unreserve(r.id().application(), r.pinned(), r.table().heapBytes());
  }
}
