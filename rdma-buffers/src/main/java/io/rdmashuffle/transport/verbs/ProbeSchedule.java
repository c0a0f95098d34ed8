/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.LongConsumer;

/**
 * When each served queue pair is probed for its reader's liveness, and when a probe has waited too
 * long for its answer. A queue pair is first probed a given delay after it was accepted (at least
 * an interval: the transport gives its reader the connect timeout to establish the connection),
 * then one interval after its last probe was answered; never two probes of one queue pair at once,
 * and at most {@code maxInFlight} probes in flight in all (the room of the completion queue they
 * complete on). A probe that finds no room stays due and goes out as soon as an answer frees some.
 * A probe unanswered for the answer deadline is overdue: the device normally reports a vanished
 * reader itself (an error completion once its retries are spent), the deadline covers a device that
 * retries forever (Soft-RoCE does when the reader asked for 7 retries).
 *
 * <p>A queue pair is watched from {@link #add} to {@link #remove} or its probe being found overdue;
 * a failed probe is the caller's to act on (it drops the queue pair and removes it here).
 *
 * <p>The serving side can't tell an idle queue pair from a busy one (the device answers READs
 * without telling the process), so every watched queue pair is probed once per interval, busy or
 * not: one packet and its acknowledgement each.
 *
 * <p>Times are {@code System.nanoTime()}-style, given by the caller. Not thread-safe: the owner's
 * thread only.
 */
public final class ProbeSchedule {
  /** A watched key: its next probe's due time, or the time its probe in flight was sent. */
  private static final class State {
    long dueNanos;
    boolean inFlight;
    long sentNanos;
  }

  /** A probe due, or one sent; stale when its key changed since (removed, answered, resent). */
  private record Mark(long key, long nanos) {}

  private final long intervalNanos;
  private final long firstNanos;
  private final long answerNanos;
  private final int maxInFlight;
  private final Map<Long, State> watched = new HashMap<>();

  /** Due probes, earliest first. */
  private final PriorityQueue<Mark> due =
      new PriorityQueue<>(Comparator.comparingLong(Mark::nanos));

  /** Probes sent, in the order sent (so by send time). */
  private final ArrayDeque<Mark> sent = new ArrayDeque<>();

  private int inFlight;

  /**
   * @param intervalNanos from an answer to the next probe
   * @param firstNanos from {@link #add} to the first probe; at least {@code intervalNanos}
   * @param answerNanos how long a probe may wait for its answer before it is overdue
   * @param maxInFlight probes in flight at once, in all
   */
  public ProbeSchedule(long intervalNanos, long firstNanos, long answerNanos, int maxInFlight) {
    if (intervalNanos <= 0 || firstNanos < intervalNanos || answerNanos <= 0 || maxInFlight <= 0) {
      throw new IllegalArgumentException(
          "interval "
              + intervalNanos
              + " ns, first probe after "
              + firstNanos
              + " ns, answer within "
              + answerNanos
              + " ns, "
              + maxInFlight
              + " in flight");
    }
    this.intervalNanos = intervalNanos;
    this.firstNanos = firstNanos;
    this.answerNanos = answerNanos;
    this.maxInFlight = maxInFlight;
  }

  /** Starts watching {@code key} (a queue pair just accepted): its first probe is the delay on. */
  public void add(long key, long nowNanos) {
    if (watched.containsKey(key)) {
      throw new IllegalStateException("already watched: " + key);
    }
    State s = new State();
    watched.put(key, s);
    schedule(key, s, nowNanos + firstNanos);
  }

  /**
   * Stops watching {@code key} (its queue pair was dropped); its probe in flight frees its room.
   */
  public void remove(long key) {
    State s = watched.remove(key);
    if (s != null && s.inFlight) {
      inFlight--;
    }
  }

  /**
   * Hands every key whose probe waited {@code answerNanos} for its answer to {@code overdue}; those
   * are no longer watched.
   */
  public void overdue(long nowNanos, LongConsumer overdue) {
    while (!sent.isEmpty() && sent.peekFirst().nanos() + answerNanos <= nowNanos) {
      Mark m = sent.pollFirst();
      State s = watched.get(m.key());
      if (s == null || !s.inFlight || s.sentNanos != m.nanos()) {
        continue; // removed or answered since
      }
      remove(m.key());
      overdue.accept(m.key());
    }
  }

  /**
   * Hands every probe due at {@code nowNanos} to {@code probe}, as long as there is room in flight;
   * each is in flight from then on, until {@link #answered}, {@link #remove} or {@link #overdue}.
   */
  public void due(long nowNanos, LongConsumer probe) {
    while (inFlight < maxInFlight && !due.isEmpty() && due.peek().nanos() <= nowNanos) {
      Mark m = due.poll();
      State s = watched.get(m.key());
      if (s == null || s.inFlight || s.dueNanos != m.nanos()) {
        continue; // removed, or rescheduled since
      }
      s.inFlight = true;
      s.sentNanos = nowNanos;
      sent.addLast(new Mark(m.key(), nowNanos));
      inFlight++;
      probe.accept(m.key());
    }
  }

  /**
   * The probe of {@code key} was answered: its next one is one interval on. False when {@code key}
   * had no probe in flight (removed since: nothing to do).
   */
  public boolean answered(long key, long nowNanos) {
    State s = watched.get(key);
    if (s == null || !s.inFlight) {
      return false;
    }
    inFlight--;
    schedule(key, s, nowNanos + intervalNanos);
    return true;
  }

  private void schedule(long key, State s, long dueNanos) {
    s.inFlight = false;
    s.dueNanos = dueNanos;
    due.add(new Mark(key, dueNanos));
  }

  /** Whether {@code key} is watched. */
  public boolean watches(long key) {
    return watched.containsKey(key);
  }

  /** Probes sent and neither answered, removed nor overdue. */
  public int inFlight() {
    return inFlight;
  }

  /** Watched keys. */
  public int size() {
    return watched.size();
  }
}
