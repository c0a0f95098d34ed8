/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * RDMA-CM connect requests the responder will accept: source address and port, announced by an
 * authenticated reader, with the application it proved and a deadline. Each announcement admits one
 * connect request. An announcement belongs to its application: while it lives, a peer of another
 * application can't replace it. Bounded in total and per source address; expired ones are dropped
 * as new ones come. Thread-safe.
 */
public final class ConnectExpectations {
  /** What became of an announcement. */
  public enum Outcome {
    ACCEPTED,
    /** A live announcement of the same source belongs to another application. */
    TAKEN,
    /** The source address has {@code maxPerPeer} live announcements. */
    PEER_FULL,
    /** There are {@code maxTotal} live announcements. */
    FULL
  }

  private record Expectation(String application, long deadlineNanos) {}

  private final Map<InetSocketAddress, Expectation> expected = new HashMap<>();
  private final Map<InetAddress, Integer> perPeer = new HashMap<>();
  private final long lifetimeNanos;
  private final int maxTotal;
  private final int maxPerPeer;

  public ConnectExpectations(long lifetimeNanos, int maxTotal, int maxPerPeer) {
    this.lifetimeNanos = lifetimeNanos;
    this.maxTotal = maxTotal;
    this.maxPerPeer = maxPerPeer;
  }

  /** Announces a connect from {@code source} for {@code application}. */
  public synchronized Outcome expect(InetSocketAddress source, String application) {
    long now = System.nanoTime();
    purge(now);
    Expectation before = expected.get(source);
    if (before != null) {
      if (!before.application().equals(application)) {
        return Outcome.TAKEN;
      }
      expected.put(source, new Expectation(application, now + lifetimeNanos)); // a renewal
      return Outcome.ACCEPTED;
    }
    if (expected.size() >= maxTotal) {
      return Outcome.FULL;
    }
    if (perPeer.getOrDefault(source.getAddress(), 0) >= maxPerPeer) {
      return Outcome.PEER_FULL;
    }
    expected.put(source, new Expectation(application, now + lifetimeNanos));
    perPeer.merge(source.getAddress(), 1, Integer::sum);
    return Outcome.ACCEPTED;
  }

  /**
   * Takes the announcement for a connect request from {@code source}.
   *
   * @return the application it was announced for, or null when none (or it expired)
   */
  public synchronized String claim(InetSocketAddress source) {
    Expectation e = expected.remove(source);
    if (e == null) {
      return null;
    }
    forget(source.getAddress());
    return System.nanoTime() - e.deadlineNanos > 0 ? null : e.application();
  }

  public synchronized int size() {
    return expected.size();
  }

  private void purge(long now) {
    for (Iterator<Map.Entry<InetSocketAddress, Expectation>> i = expected.entrySet().iterator();
        i.hasNext(); ) {
      Map.Entry<InetSocketAddress, Expectation> e = i.next();
      if (now - e.getValue().deadlineNanos > 0) {
        i.remove();
        forget(e.getKey().getAddress());
      }
    }
  }

  private void forget(InetAddress peer) {
    perPeer.computeIfPresent(peer, (k, n) -> n == 1 ? null : n - 1);
  }
}
