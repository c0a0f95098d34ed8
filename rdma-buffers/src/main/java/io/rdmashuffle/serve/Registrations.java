package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.RegisteredFile;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The outputs an {@link OutputCatalog} holds registered, least recently used first, and their share
 * of the bounds: open outputs and pinned bytes, counting registrations still in progress (reserved
 * before the transport registers, so concurrent registrations can't overshoot). Not thread-safe:
 * every call is made under the catalog's lock; closing evicted files is left to the caller, outside
 * the lock.
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
  private final LinkedHashMap<OutputId, Boolean> evicted =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<OutputId, Boolean> eldest) {
          return size() > EVICTED_MEMORY;
        }
      };
  private int open;
  private long pinned;

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

  /**
   * Reserves room for one more output pinning {@code pin} bytes; with {@code evict}, evicting least
   * recently used outputs (added to {@code victims}) until it fits.
   *
   * @return false when it does not fit (nothing reserved)
   */
  boolean reserve(long pin, boolean evict, List<Registered> victims) {
    Iterator<Registered> it = registered.values().iterator();
    while (open + 1 > limits.maxOpenOutputs() || pinned + pin > limits.maxPinnedBytes()) {
      if (!evict || !it.hasNext()) {
        return false;
      }
      Registered r = it.next();
      it.remove();
      evicted(r);
      victims.add(r);
    }
    open++;
    pinned += pin;
    return true;
  }

  /** Gives back a reservation whose registration failed or was dropped. */
  void unreserve(long pin) {
    open--;
    pinned -= pin;
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

  /** Evicts the least recently used output, or returns null when none is registered. */
  Registered evictOne() {
    Iterator<Registered> it = registered.values().iterator();
    if (!it.hasNext()) {
      return null;
    }
    Registered r = it.next();
    it.remove();
    evicted(r);
    return r;
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
    open--;
    pinned -= r.pinned();
    metrics.holding(open, pinned);
  }
}
