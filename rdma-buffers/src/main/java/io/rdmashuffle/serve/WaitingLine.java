/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The locates waiting for room when every output that could make room is leased, oldest first: a
 * locate's age runs from the first time its reader was answered "busy" (the server remembers the
 * readers it turned away), so a reader that has asked again and again goes ahead of one that just
 * came, and when the line is full it takes the place of the youngest waiter, which is answered busy
 * at once. Without that memory a reader the full line turned away asked again by lottery against
 * every newcomer, and after its patience gave up ({@code ServingAtScaleIT}: 15 of 4,000 tasks).
 * Guarded by the catalog's lock, on which waiters wait.
 */
final class WaitingLine {
  /** How many turned-away readers are remembered at most (the oldest are forgotten first). */
  static final int MAX_REMEMBERED = 16_384;

  /** How long a turned-away reader is remembered: beyond any reader's patience. */
  static final long REMEMBER_NANOS = TimeUnit.MINUTES.toNanos(10);

  private static final long RECHECK_MILLIS = 20;

  /** Reserves room under the lock, evicting unleased outputs when {@code evict}. */
  interface Room {
    boolean reserve(boolean evict, long now);
  }

  private static final class Ticket {
    final long since;
    boolean displaced;

    Ticket(long since) {
      this.since = since;
    }
  }

  private final Object lock;
  private final int maxWaiting;
  private final ServingMetrics metrics;

  /** Oldest first. */
  private final List<Ticket> waiting = new ArrayList<>();

  /** Reader to the time it was first answered busy, in the order they were turned away. */
  private final LinkedHashMap<Long, Long> turnedAway = new LinkedHashMap<>();

  WaitingLine(Object lock, int maxWaiting, ServingMetrics metrics) {
    this.lock = lock;
    this.maxWaiting = maxWaiting;
    this.metrics = metrics;
  }

  /**
   * Under the lock: reserves {@code room} for {@code reader}, at once when nobody waits, else (with
   * {@code evict}) waiting in the line by age until {@code deadline} (nanos). At most {@code
   * maxWaiting} wait: beyond, an older reader takes the place of the youngest waiter, a younger one
   * is answered busy at once. Whoever frees room wakes the waiters; a lease that times out frees
   * room without a word, so waiters look again every {@value #RECHECK_MILLIS} ms. Reader 0 (tools,
   * tests) is never remembered.
   */
  boolean reserve(long reader, boolean evict, long deadline, Room room) {
    long now = System.nanoTime();
    if (waiting.isEmpty() && room.reserve(evict, now)) {
      turnedAway.remove(reader);
      return true;
    }
    Long first = turnedAway.get(reader);
    Ticket ticket = new Ticket(first == null ? now : first);
    if (!evict || deadline - now <= 0 || !enter(ticket)) {
      remember(reader, ticket.since, now);
      return false;
    }
    long start = now;
    boolean reserved = false;
    try {
      while (!ticket.displaced) {
        now = System.nanoTime();
        if (waiting.get(0) == ticket && room.reserve(true, now)) {
          reserved = true;
          break;
        }
        long left = deadline - now;
        if (left <= 0) {
          break;
        }
        lock.wait(Math.max(1, Math.min(RECHECK_MILLIS, TimeUnit.NANOSECONDS.toMillis(left))));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      waiting.remove(ticket);
      lock.notifyAll(); // the next in line may fit now
      metrics.waited(System.nanoTime() - start);
    }
    if (reserved) {
      turnedAway.remove(reader);
    } else {
      remember(reader, ticket.since, System.nanoTime());
    }
    return reserved;
  }

  /** Places {@code ticket} by age, displacing the youngest waiter when the line is full. */
  private boolean enter(Ticket ticket) {
    if (waiting.size() >= maxWaiting) {
      Ticket youngest = waiting.isEmpty() ? null : waiting.get(waiting.size() - 1);
      if (youngest == null || youngest.since <= ticket.since) {
        return false;
      }
      waiting.remove(waiting.size() - 1);
      youngest.displaced = true;
      metrics.displaced();
      lock.notifyAll();
    }
    int i = waiting.size();
    while (i > 0 && waiting.get(i - 1).since > ticket.since) {
      i--;
    }
    waiting.add(i, ticket);
    return true;
  }

  private void remember(long reader, long since, long now) {
    if (reader == 0) {
      return;
    }
    turnedAway.putIfAbsent(reader, since);
    Iterator<Map.Entry<Long, Long>> oldest = turnedAway.entrySet().iterator();
    while (oldest.hasNext()) {
      Map.Entry<Long, Long> e = oldest.next();
      if (turnedAway.size() <= MAX_REMEMBERED && now - e.getValue() < REMEMBER_NANOS) {
        break;
      }
      oldest.remove();
    }
  }

  /** Locates waiting in the line now (tests). */
  int waiting() {
    return waiting.size();
  }

  /** Readers remembered as turned away (tests). */
  int remembered() {
    return turnedAway.size();
  }
}
