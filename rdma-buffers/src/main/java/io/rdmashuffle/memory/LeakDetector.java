/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds counted resources that are dropped while still holding memory: registered regions never
 * freed, pooled buffers never given back, registered files never unmapped, buffer pools never
 * closed. While detection is on, each such resource is tracked from its creation (or lending) to
 * its freeing by a phantom reference; one that becomes unreachable first is a leak, logged once
 * with where it was created and counted ({@link #leaksReported()}). Tests also ask which tracked
 * resources are still live ({@link #liveSince}), which finds leaks the garbage collector hasn't
 * seen yet.
 *
 * <p>Process-wide and off by default (a stack trace per buffer lent is a price for debugging, not
 * for production): the engines switch it on when {@code debug.leakDetection} is set, the tests'
 * {@code LeakCheckExtension} always. Once on, it stays on: resources created before were not
 * tracked, and turning it off would hide what was tracked.
 */
public final class LeakDetector {
  private static final Logger LOG = LoggerFactory.getLogger(LeakDetector.class);

  /** Reported leaks kept for {@link #drainReported}; beyond it they are only logged and counted. */
  private static final int MAX_KEPT = 1000;

  private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
  private static final Set<Tracker> LIVE = ConcurrentHashMap.newKeySet();
  private static final ConcurrentLinkedQueue<Leak> REPORTED = new ConcurrentLinkedQueue<>();
  private static final AtomicLong SEQUENCE = new AtomicLong();
  private static final AtomicLong LEAKS = new AtomicLong();
  private static volatile boolean enabled;

  private LeakDetector() {}

  /** What kind of resource a tracker follows, and what should have happened to it. */
  public enum Kind {
    REGION("deregistered"),
    BUFFER("released to its pool"),
    FILE("closed and released"),
    POOL("closed");

    private final String expected;

    Kind(String expected) {
      this.expected = expected;
    }
  }

  /**
   * One tracked resource, as {@link #liveSince} and {@link #drainReported} report it.
   *
   * @param createdAt a throwable whose stack trace is where the resource was created or lent
   * @param unreachable whether the garbage collector found it dropped (a {@link #drainReported}
   *     leak); false for one merely still live
   * @param sequence when it was tracked, in the order {@link #mark()} counts
   */
  public record Leak(
      Kind kind, String what, Throwable createdAt, boolean unreachable, long sequence) {
    @Override
    public String toString() {
      return what + (unreachable ? " was dropped without being " : " is not yet ") + kind.expected;
    }
  }

  /** Follows one resource until {@link #close()}; owned by the resource. */
  static final class Tracker extends PhantomReference<Object> {
    private final Kind kind;
    private final String what;
    private final Throwable createdAt;
    private final long sequence;

    /** Set for memory a longer-lived owner accounts for (a pool's chunks): not listed as live. */
    private volatile boolean heldByOwner;

    private Tracker(Object referent, Kind kind, String what) {
      super(referent, QUEUE);
      this.kind = kind;
      this.what = what;
      this.createdAt = new Throwable(what + ": created here");
      this.sequence = SEQUENCE.incrementAndGet();
    }

    /** Stops tracking: the resource was freed. Idempotent. */
    void close() {
      LIVE.remove(this);
      clear();
    }

    void heldByOwner() {
      heldByOwner = true;
    }

    Throwable createdAt() {
      return createdAt;
    }

    private Leak leak(boolean unreachable) {
      return new Leak(kind, what, createdAt, unreachable, sequence);
    }
  }

  /** Switches detection on for this process, from now on. */
  public static void enable() {
    if (!enabled) {
      enabled = true;
      LOG.info(
          "leak detection is on: registered memory, lent buffers and registered files are"
              + " tracked (a stack trace per resource)");
    }
  }

  public static boolean isEnabled() {
    return enabled;
  }

  /** Tracks {@code resource} when detection is on; null otherwise. */
  static Tracker track(Object resource, Kind kind, String what) {
    return enabled ? trackAlways(resource, kind, what) : null;
  }

  /** Tracks {@code resource} even with detection off (a pool asked to track its buffers). */
  static Tracker trackAlways(Object resource, Kind kind, String what) {
    collect();
    Tracker t = new Tracker(resource, kind, what);
    LIVE.add(t);
    return t;
  }

  /** Stops tracking a freed resource; keeps {@code resource} reachable until it is done. */
  static void untrack(Tracker t, Object resource) {
    if (t != null) {
      t.close();
      Reference.reachabilityFence(resource);
    }
  }

  /** A point in the sequence of tracked resources: {@link #liveSince} lists those after it. */
  public static long mark() {
    return SEQUENCE.get();
  }

  /**
   * Tracked resources created (or lent) after {@code mark} that are not freed yet, leaving out
   * memory a live owner accounts for (a pool's idle chunks: the pool itself is listed).
   */
  public static List<Leak> liveSince(long mark) {
    List<Leak> out = new ArrayList<>();
    for (Tracker t : LIVE) {
      if (t.sequence > mark && !t.heldByOwner) {
        out.add(t.leak(false));
      }
    }
    out.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
    return out;
  }

  /**
   * Stops following every resource created after {@code mark}, including memory an owner accounts
   * for (a failed test's leaked buffer keeps its pool chunk registered: reported once is enough).
   */
  public static void dismissSince(long mark) {
    for (Tracker t : LIVE) {
      if (t.sequence > mark) {
        t.close();
      }
    }
  }

  /** Reports the tracked resources the garbage collector found dropped; how many it found. */
  public static int collect() {
    int n = 0;
    Reference<?> r;
    while ((r = QUEUE.poll()) != null) {
      Tracker t = (Tracker) r;
      if (LIVE.remove(t)) {
        n++;
        report(t.leak(true));
      }
    }
    return n;
  }

  private static void report(Leak leak) {
    LEAKS.incrementAndGet();
    if (REPORTED.size() < MAX_KEPT) {
      REPORTED.add(leak);
    }
    LOG.error("LEAK: {}; created at:", leak, leak.createdAt());
  }

  /** Leaks reported since the last call (up to the last 1000), oldest first; clears them. */
  public static List<Leak> drainReported() {
    collect();
    List<Leak> out = new ArrayList<>();
    Leak l;
    while ((l = REPORTED.poll()) != null) {
      out.add(l);
    }
    return out;
  }

  /** Leaks reported since the process started. */
  public static long leaksReported() {
    return LEAKS.get();
  }
}
