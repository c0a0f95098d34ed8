/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The nonces a server saw in recent handshakes: client nonces (a HELLO that repeats one is a
 * replay) and its own server nonces (a HELLO that carries one is a reflection). Entries expire
 * after a lifetime and the oldest are dropped beyond a capacity, so a flood of HELLOs costs bounded
 * memory; the proofs over fresh server nonces are what defeats a replay in any case, this history
 * only names it. Thread-safe; one per connection server.
 */
public final class NonceHistory {
  /** Who produced a nonce. */
  public enum Origin {
    CLIENT,
    SERVER
  }

  private record Key(long a, long b, long c, long d) {}

  private record Entry(Origin origin, long expiresNanos) {}

  private final LinkedHashMap<Key, Entry> seen = new LinkedHashMap<>();
  private final int capacity;
  private final long lifetimeNanos;

  public NonceHistory(int capacity, long lifetimeNanos) {
    this.capacity = capacity;
    this.lifetimeNanos = lifetimeNanos;
  }

  /** Records {@code nonce}; returns who produced it before, or null when it is new. */
  public synchronized Origin record(byte[] nonce, Origin origin) {
    long now = System.nanoTime();
    expire(now);
    Key k = key(nonce);
    Entry before = seen.get(k);
    if (before != null) {
      return before.origin();
    }
    seen.put(k, new Entry(origin, now + lifetimeNanos));
    if (seen.size() > capacity) {
      Iterator<Key> oldest = seen.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    return null;
  }

  public synchronized int size() {
    return seen.size();
  }

  private void expire(long now) {
    for (Iterator<Map.Entry<Key, Entry>> i = seen.entrySet().iterator(); i.hasNext(); ) {
      if (now - i.next().getValue().expiresNanos() < 0) {
        return; // in insertion order: the rest expire later
      }
      i.remove();
    }
  }

  private static Key key(byte[] nonce) {
    ByteBuffer b = ByteBuffer.wrap(nonce);
    return new Key(b.getLong(0), b.getLong(8), b.getLong(16), b.getLong(24));
  }
}
