/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.SegmentFetcher.Failed;
import io.rdmashuffle.fetch.SegmentFetcher.Result;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegistrationException;
import io.rdmashuffle.transport.PeerAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The requests of one {@link SegmentFetcher} waiting for admission, by owner, and their admission:
 * owners are served in turn, from a random first one, while the {@link SegmentWindow} allows; an
 * admitted request gets a buffer from the pool (a free one, or waiting for one when it must go: the
 * reader's own {@link Shortage} when none comes) and is posted by the {@link ReadPoster}. The
 * consumer's thread only.
 */
final class SegmentAdmission {
  private final BufferPool buffers;
  private final SegmentLimits limits;
  private final SegmentWindow window;
  private final ReadPoster poster;

  /** Told when all the READs of a request ended. */
  private final Consumer<SegmentRead> ended;

  /** Requests not yet admitted, by owner; owners in the order they are served in turn. */
  private final Map<PeerAddress, PeerQueue> byPeer = new HashMap<>();

  private final List<PeerQueue> rotation = new ArrayList<>();
  private int cursor = -1;

  SegmentAdmission(
      BufferPool buffers,
      SegmentLimits limits,
      SegmentWindow window,
      ReadPoster poster,
      Consumer<SegmentRead> ended) {
    this.buffers = buffers;
    this.limits = limits;
    this.window = window;
    this.poster = poster;
    this.ended = ended;
  }

  /** One owner's requests waiting for admission, and its share of the window now. */
  static final class PeerQueue {
    final ArrayDeque<SegmentRead> entries = new ArrayDeque<>();
    long inFlightBytes;
  }

  /** Queues {@code request} behind the others of its owner. */
  void add(SegmentRequest request) {
    PeerQueue q = byPeer.get(request.peer());
    if (q == null) {
      q = new PeerQueue();
      byPeer.put(request.peer(), q);
      rotation.add(q);
    }
    q.entries.add(new SegmentRead(request, q, ended));
  }

  /** Forgets every request waiting (the fetcher closes). */
  void clear() {
    byPeer.clear();
    rotation.clear();
  }

  /**
   * Admits {@code needed} if it waits, then waiting requests, owner by owner in turn, while the
   * bounds allow; with {@code mayWait}, when nothing is in flight, the next request in line beyond
   * the bounds, waiting for a buffer (else nothing would ever arrive). Returns the first result one
   * of them yields at once (empty segment, failure), or null.
   */
  Result admit(SegmentRequest needed, boolean mayWait) throws InterruptedException {
    if (needed != null) {
      SegmentRead e = waitingEntry(needed);
      if (e != null) {
        Admission a = admitEntry(e, mayWait);
        if (a.result != null || a.admitted || mayWait) {
          return a.result;
        }
      }
    }
    int n = rotation.size();
    boolean progress = true;
    while (progress) {
      progress = false;
      int busyPeers = peersWaiting();
      for (int k = 0; k < n; k++) {
        int i = Math.floorMod(nextCursor() + k, n);
        PeerQueue q = rotation.get(i);
        SegmentRead head = q.entries.peekFirst();
        if (head == null || !window.fits(head, q, busyPeers)) {
          continue;
        }
        Admission a = admitEntry(head, false);
        if (a.result != null) {
          cursor = i;
          return a.result;
        }
        if (!a.admitted) {
          break; // no buffer free now: READs that end (and consumers that release) free some
        }
        cursor = i;
        progress = true;
        busyPeers = peersWaiting();
      }
    }
    if (mayWait && needed == null && window.requestsInFlight() == 0) {
      for (int k = 0; k < n; k++) {
        SegmentRead head = rotation.get(Math.floorMod(nextCursor() + k, n)).entries.peekFirst();
        if (head != null) {
          return admitEntry(head, true).result;
        }
      }
    }
    return null;
  }

  /** Where owners' turns continue: after the last one served, or a random first one. */
  private int nextCursor() {
    if (cursor < 0) {
      cursor = rotation.isEmpty() ? 0 : ThreadLocalRandom.current().nextInt(rotation.size()) - 1;
    }
    return cursor + 1;
  }

  private int peersWaiting() {
    int busy = 0;
    for (PeerQueue q : rotation) {
      if (!q.entries.isEmpty()) {
        busy++;
      }
    }
    return busy;
  }

  private SegmentRead waitingEntry(SegmentRequest request) {
    PeerQueue q = byPeer.get(request.peer());
    if (q != null) {
      for (SegmentRead e : q.entries) {
        if (e.request == request) {
          return e;
        }
      }
    }
    return null;
  }

  /** The outcome of trying to admit one request. */
  private record Admission(boolean admitted, Result result) {}

  private static final Admission NOT_NOW = new Admission(false, null);

  /**
   * Admits {@code e} (taking it off its owner's queue): allocates its buffer (waiting for one when
   * {@code mustGo}, else only if one is free now) and posts it. Its result when it needs no READ
   * (empty segment, failure).
   */
  private Admission admitEntry(SegmentRead e, boolean mustGo) throws InterruptedException {
    int len = e.request.length();
    if (len == 0) {
      e.queue.entries.remove(e);
      return new Admission(true, new FetchedSegment(e.request, null, () -> {}));
    }
    PooledBuffer b;
    try {
      b =
          mustGo
              ? buffers.allocate(len, limits.allocationWaitMillis(), TimeUnit.MILLISECONDS)
              : buffers.tryAllocate(len);
    } catch (RegistrationException | IllegalArgumentException ex) {
      e.queue.entries.remove(e);
      return new Admission(
          true,
          new Failed(
              e.request,
              new Shortage(
                  "no registered buffer for a segment of " + len + " bytes: " + ex.getMessage(),
                  ex)));
    }
    if (b == null) {
      if (!mustGo) {
        return NOT_NOW;
      }
      e.queue.entries.remove(e);
      return new Admission(
          true,
          new Failed(
              e.request,
              new Shortage(
                  "no registered buffer of "
                      + len
                      + " bytes within "
                      + limits.allocationWaitMillis()
                      + " ms (the process's READ"
                      + " buffers are all in use)",
                  null)));
    }
    e.queue.entries.remove(e);
    e.buffer = b;
    window.hold(len);
    window.inFlight(e, 1);
    return new Admission(true, poster.post(e));
  }
}
