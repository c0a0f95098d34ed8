/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.metrics.Refusal;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The connection server's bounds on connections: in their handshake (in total and per source) and
 * authenticated (in total, per source address and per application). A connection takes a place
 * before it may proceed and gives it back when it leaves that stage. Thread-safe; one per server.
 *
 * <p>So that strangers can't crowd it out: a source is, for the handshake bounds, its prefix (IPv4
 * /24, IPv6 /64), unless the address authenticated within {@code server.idleTimeout} (a known
 * source, counted by its own address); an eighth of the handshake places is kept for known sources;
 * and a bound that is reached makes room by dropping the handshake that has been idle longest (of
 * the newcomer's source for the per-source bound; of a stranger for the total), never by refusing
 * the newcomer while such a handshake exists. A known source's handshake is never dropped for a
 * stranger.
 */
final class Admission {
  /** A connection in its handshake, as the admission sees it. */
  interface Holder {
    /** Its place was given to a newcomer ({@code why}): it must close. Any thread. */
    void evicted(Refusal why);
  }

  /** Authenticated addresses remembered at most (the least recently authenticated go first). */
  static final int MAX_KNOWN_SOURCES = 65_536;

  private record Prefix(InetAddress masked) {}

  /** Where a handshake counts: its source key, and whether that source is known. */
  private record Place(Object source, boolean known) {}

  private final ServerLimits limits;
  private final int reserve;

  /** Handshakes, least recently active first. */
  private final LinkedHashMap<Holder, Place> handshakes = new LinkedHashMap<>(16, 0.75f, true);

  private final Map<Object, Integer> handshakesBySource = new HashMap<>();
  private int strangers;
  private int connections;
  private final Map<InetAddress, Integer> connectionsBySource = new HashMap<>();
  private final Map<String, Integer> connectionsByApplication = new HashMap<>();

  /** When each address last authenticated (nanoTime), least recently first. */
  private final LinkedHashMap<InetAddress, Long> known =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, Long> eldest) {
          return size() > MAX_KNOWN_SOURCES;
        }
      };

  Admission(ServerLimits limits) {
    this.limits = limits;
    this.reserve = limits.maxHandshakes() / 8;
  }

  /**
   * Takes a handshake place for {@code h} from {@code source}, dropping the handshake idle longest
   * where a bound is reached; or says which bound refuses (nothing can be dropped for it).
   */
  synchronized Refusal tryHandshake(InetAddress source, Holder h) {
    boolean isKnown = knownLocked(source);
    Object key = isKnown ? source : prefixOf(source);
    if (handshakesBySource.getOrDefault(key, 0) >= limits.maxHandshakesPerSource()) {
      Holder victim = idlestLocked(key, true);
      if (victim == null) {
        return Refusal.HANDSHAKES_PER_SOURCE;
      }
      evictLocked(victim, Refusal.HANDSHAKES_PER_SOURCE);
    }
    if (handshakes.size() >= limits.maxHandshakes()
        || (!isKnown && strangers >= limits.maxHandshakes() - reserve)) {
      Holder victim = idlestLocked(null, false);
      if (victim == null) {
        return Refusal.HANDSHAKES;
      }
      evictLocked(victim, Refusal.HANDSHAKES);
    }
    handshakes.put(h, new Place(key, isKnown));
    handshakesBySource.merge(key, 1, Integer::sum);
    if (!isKnown) {
      strangers++;
    }
    return null;
  }

  /** Bytes of {@code h}'s handshake arrived: it is not idle. */
  synchronized void active(Holder h) {
    handshakes.get(h); // access order: to the end
  }

  /** {@code h} left its handshake (or closed); nothing when its place was given away already. */
  synchronized void handshakeEnded(Holder h) {
    Place p = handshakes.remove(h);
    if (p != null) {
      released(p);
    }
  }

  /** Whether {@code h} still holds its handshake place (it was not dropped for a newcomer). */
  synchronized boolean holds(Holder h) {
    return handshakes.containsKey(h);
  }

  /**
   * The handshake idle longest: of source {@code key} (any, when {@code key} is null), or when
   * {@code anyKnown} is false, only a stranger's.
   */
  private Holder idlestLocked(Object key, boolean anyKnown) {
    for (Map.Entry<Holder, Place> e : handshakes.entrySet()) {
      Place p = e.getValue();
      if ((key == null || key.equals(p.source())) && (anyKnown || !p.known())) {
        return e.getKey();
      }
    }
    return null;
  }

  private void evictLocked(Holder victim, Refusal why) {
    released(handshakes.remove(victim));
    victim.evicted(why);
  }

  private void released(Place p) {
    decrement(handshakesBySource, p.source());
    if (!p.known()) {
      strangers--;
    }
  }

  private boolean knownLocked(InetAddress source) {
    Long at = known.get(source);
    return at != null && System.nanoTime() - at < limits.idleTimeoutNanos();
  }

  /** Takes a connection place for an authenticated connection, or says which bound refuses. */
  synchronized Refusal tryConnection(InetAddress source, String application) {
    if (connections >= limits.maxConnections()) {
      return Refusal.CONNECTIONS;
    }
    if (connectionsBySource.getOrDefault(source, 0) >= limits.maxConnectionsPerSource()) {
      return Refusal.CONNECTIONS_PER_SOURCE;
    }
    if (connectionsByApplication.getOrDefault(application, 0)
        >= limits.maxConnectionsPerApplication()) {
      return Refusal.CONNECTIONS_PER_APPLICATION;
    }
    connections++;
    connectionsBySource.merge(source, 1, Integer::sum);
    connectionsByApplication.merge(application, 1, Integer::sum);
    known.put(source, System.nanoTime());
    return null;
  }

  synchronized void connectionEnded(InetAddress source, String application) {
    connections--;
    decrement(connectionsBySource, source);
    decrement(connectionsByApplication, application);
  }

  synchronized int handshakes() {
    return handshakes.size();
  }

  synchronized int connections() {
    return connections;
  }

  /** The /24 of an IPv4 address, the /64 of an IPv6 one. */
  static Object prefixOf(InetAddress a) {
    byte[] b = a.getAddress();
    int keep = a instanceof Inet4Address ? 3 : 8;
    for (int i = keep; i < b.length; i++) {
      b[i] = 0;
    }
    try {
      return new Prefix(InetAddress.getByAddress(b));
    } catch (UnknownHostException e) {
      throw new IllegalStateException("an address of " + b.length + " bytes", e);
    }
  }

  private static <K> void decrement(Map<K, Integer> m, K key) {
    m.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
  }
}
