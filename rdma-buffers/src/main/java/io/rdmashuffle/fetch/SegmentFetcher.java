/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegistrationException;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Fetches byte ranges ("segments") of files that peers registered, into pooled registered buffers,
 * for one consumer: a Spark reduce task, a MapReduce fetcher's stream. The engine-neutral core of
 * both readers.
 *
 * <p>The consumer {@link #add}s requests and gets results with {@link #take} (waiting) or {@link
 * #poll} (never waiting); whichever thread calls them admits requests (allocates buffers, posts
 * READs) as the bounds allow ({@link SegmentLimits}: a window of bytes in flight, a budget of bytes
 * held until the consumer releases them, a share of the window per owner while others wait), so
 * transport threads never block. Owners are served in turn, from a random first one, so a task's
 * READs spread over its owners. {@link #poll} never blocks at all: it allocates only free buffers
 * and opens connections in the background ({@link ConnectionPool#channelNow}); a thread that drives
 * many fetchers may call it. The bytes beyond the bounds are what the consumer can't go on without:
 * the segment it names in {@link #take} (the next one of a stream it reads), or, when nothing is in
 * flight, the next request in line.
 *
 * <p>Failures, and whose they are. A READ that fails in the transport (connection lost,
 * unreachable, timeout) is retried on a fresh connection up to {@code maxRetries} times, {@code
 * retryWait} apart (as Spark's {@code spark.shuffle.io.maxRetries}/{@code retryWait}), then handed
 * to the consumer as {@link Failed}. A READ the owner refused ({@link RemoteAccessException}: the
 * registration was withdrawn) is handed over at once: the consumer asks the owner where to READ it
 * now. When no buffer can be had within the allocation wait, the consumer gets a {@link Failed}
 * whose cause is a {@link Shortage}: the reader's own problem, never the peer's. Other threads may
 * hand the consumer events through {@link #signal}; {@link #onEvent} tells whoever drives that
 * something arrived.
 *
 * <p>Not thread-safe except {@link #signal}, {@link #hasEvents} and {@link
 * FetchedSegment#release()}: one thread at a time calls the rest (the consumer's, or a driver
 * holding the consumer's lock).
 */
public final class SegmentFetcher implements AutoCloseable {
  private final ConnectionPool connections;
  private final BufferPool buffers;
  private final SegmentLimits limits;

  /** Requests not yet admitted, by owner; owners in the order they are served in turn. */
  private final Map<PeerAddress, PeerQueue> byPeer = new HashMap<>();

  private final List<PeerQueue> rotation = new ArrayList<>();
  private int cursor = -1;

  /** Failed READs waiting for their retry, in order of when they may go. */
  private final ArrayDeque<Entry> retrying = new ArrayDeque<>();

  /** Admitted requests waiting for a connection being opened in the background. */
  private final ArrayDeque<Entry> connecting = new ArrayDeque<>();

  /** Results found together (several failed at once), handed out one per call. */
  private final ArrayDeque<Result> results = new ArrayDeque<>();

  private final LinkedBlockingQueue<Event> done = new LinkedBlockingQueue<>();
  private final AtomicLong bytesHeld = new AtomicLong();

  /** Requests admitted whose READs have not ended (waiting for a connection included). */
  private int requestsInFlight;

  private long bytesInFlight;

  /** Where the last READs went: the consumer helps it find completions before it blocks. */
  private ReadChannel lastPosted;

  private final AtomicBoolean closed = new AtomicBoolean();
  private final Runnable onRetry;
  private volatile Runnable onEvent = () -> {};
  private int outstanding;

  /** A result of {@link #take} or {@link #poll}. */
  public sealed interface Result permits FetchedSegment, Failed, Signal {}

  /** What other threads put on the fetcher's queue. */
  private sealed interface Event permits Entry, Signal, ChannelOpened {}

  /** A background connection open ended: what waited for it is posted (or fails) now. */
  private record ChannelOpened() implements Event {}

  private static final ChannelOpened CHANNEL_OPENED = new ChannelOpened();

  /** The segment could not be fetched; {@code cause} says why and whose fault it is. */
  public record Failed(SegmentRequest request, IOException cause) implements Result {
    /** Whether the owner refused the READ (a withdrawn registration: ask it again). */
    public boolean refusedByOwner() {
      return cause instanceof RemoteAccessException;
    }

    /** Whether the reader itself ran short (no buffer): not the owner's fault. */
    public boolean shortage() {
      return cause instanceof Shortage;
    }
  }

  /** An event another thread handed to the consumer ({@link #signal}). */
  public record Signal(FetchSignal event) implements Result, Event {}

  /** One owner's requests waiting for admission, and its share of the window now. */
  private static final class PeerQueue {
    final ArrayDeque<Entry> entries = new ArrayDeque<>();
    long inFlightBytes;
  }

  /** One request on its way: its buffer, its READs, its outcome. */
  private final class Entry implements ReadListener, Event {
    final SegmentRequest request;
    final PeerQueue queue;
    int attempts;
    long notBefore;
    PooledBuffer buffer;
    ReadChannel channel;

    /** Why its last connection could not be had (a background open failed), or null. */
    TransportException openFailure;

    final AtomicInteger parts = new AtomicInteger();
    final AtomicReference<TransportException> failure = new AtomicReference<>();

    Entry(SegmentRequest request, PeerQueue queue) {
      this.request = request;
      this.queue = queue;
    }

    @Override
    public void onReadComplete(ReadOp op) {
      partDone();
    }

    @Override
    public void onReadFailed(ReadOp op, TransportException cause) {
      failure.compareAndSet(null, cause);
      partDone();
    }

    private void partDone() {
      if (parts.decrementAndGet() == 0) {
        arrived(this);
        if (closed.get()) {
          dropFinished();
        }
      }
    }
  }

  /**
   * @param onRetry told each time a READ is tried again (counters)
   */
  public SegmentFetcher(
      ConnectionPool connections, BufferPool buffers, SegmentLimits limits, Runnable onRetry) {
    this.connections = connections;
    this.buffers = buffers;
    this.limits = limits;
    this.onRetry = onRetry;
  }

  /**
   * Runs {@code r} (on the thread that queued it: a transport thread, a timer) each time something
   * arrives for the consumer: a READ ended, a signal, a connection opened. It must be quick and
   * never block.
   */
  public void onEvent(Runnable r) {
    this.onEvent = r;
  }

  /** Queues a request; it is admitted by a later {@link #take} or {@link #poll}. */
  public void add(SegmentRequest request) {
    if (closed.get()) {
      throw new IllegalStateException("segment fetcher is closed");
    }
    PeerQueue q = byPeer.get(request.peer());
    if (q == null) {
      q = new PeerQueue();
      byPeer.put(request.peer(), q);
      rotation.add(q);
    }
    q.entries.add(new Entry(request, q));
    outstanding++;
  }

  /** Hands {@code event} to the consumer's next {@link #take}, as a {@link Signal}. Any thread. */
  public void signal(FetchSignal event) {
    arrived(new Signal(event));
  }

  private void arrived(Event e) {
    done.add(e);
    onEvent.run();
  }

  /** Whether something arrived that {@link #take} or {@link #poll} has not seen yet. Any thread. */
  public boolean hasEvents() {
    return !done.isEmpty();
  }

  /** Requests added and not yet returned by {@link #take} or {@link #poll}. */
  public int outstanding() {
    return outstanding;
  }

  /**
   * Admits what the bounds allow, then returns the next finished segment (in completion order) or
   * signal, or null when none came within the timeout.
   *
   * @throws InterruptedException when the consumer's thread is interrupted (it stops waiting for
   *     buffers and READs at once)
   */
  public Result take(long timeout, TimeUnit unit) throws InterruptedException {
    return take(timeout, unit, null);
  }

  /**
   * {@link #take(long, TimeUnit)}, for a consumer that can't go on without {@code needed} (a
   * request it added): that one is admitted at once, beyond the bounds if it must be.
   */
  public Result take(long timeout, TimeUnit unit, SegmentRequest needed)
      throws InterruptedException {
    checkOpen();
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      Result r = admit(needed, true);
      if (r != null) {
        return handOut(r);
      }
      long wait = Math.min(50_000_000L, Math.max(0, deadline - System.nanoTime()));
      if (!retrying.isEmpty()) {
        wait = Math.min(wait, Math.max(0, retrying.peekFirst().notBefore - System.nanoTime()));
      }
      if (requestsInFlight > 0 && lastPosted != null && done.isEmpty()) {
        // whoever waits polls (verbs): a READ that ends within the transport's wait spin is found
        // by this thread, which then needs no wake-up
        lastPosted.helpUntil(() -> !done.isEmpty(), wait);
      }
      Event e = done.poll(wait, TimeUnit.NANOSECONDS);
      if (e != null) {
        r = handle(e);
        if (r != null) {
          return handOut(r);
        }
      } else if (System.nanoTime() - deadline >= 0) {
        return null;
      }
    }
  }

  /**
   * Admits what the bounds allow without waiting for anything (free buffers only, connections
   * opened in the background), then returns the next result that arrived, or null when none did.
   * Never blocks: a thread that drives many fetchers calls it.
   */
  public Result poll() {
    checkOpen();
    try {
      Result r = admit(null, false);
      Event e;
      while (r == null && (e = done.poll()) != null) {
        r = handle(e);
        if (r == null) {
          r = admit(null, false);
        }
      }
      return r == null ? null : handOut(r);
    } catch (InterruptedException e) {
      throw new AssertionError("poll never waits", e);
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("segment fetcher is closed");
    }
  }

  private Result handOut(Result r) {
    if (!(r instanceof Signal)) {
      outstanding--;
    }
    return r;
  }

  /** One event off the queue: its result, or null when it yields none (yet). */
  private Result handle(Event e) throws InterruptedException {
    if (e instanceof Signal s) {
      return s;
    }
    return e instanceof Entry entry ? finish(entry) : postConnecting();
  }

  /**
   * Posts retries that are due, then {@code needed} if it waits, then waiting requests, owner by
   * owner in turn, while the bounds allow; with {@code mayWait}, when nothing is in flight, the
   * next request in line beyond the bounds, waiting for a buffer (else nothing would ever arrive).
   */
  private Result admit(SegmentRequest needed, boolean mayWait) throws InterruptedException {
    if (!results.isEmpty()) {
      return results.poll();
    }
    long now = System.nanoTime();
    while (!retrying.isEmpty() && now - retrying.peekFirst().notBefore >= 0) {
      Entry e = retrying.pollFirst();
      inFlight(e, 1);
      Failed f = post(e);
      if (f != null) {
        return f;
      }
    }
    if (needed != null) {
      Entry e = waitingEntry(needed);
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
        Entry head = q.entries.peekFirst();
        if (head == null || !fits(head, q, busyPeers)) {
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
    if (mayWait && needed == null && requestsInFlight == 0) {
      for (int k = 0; k < n; k++) {
        Entry head = rotation.get(Math.floorMod(nextCursor() + k, n)).entries.peekFirst();
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

  private boolean fits(Entry e, PeerQueue q, int busyPeers) {
    long len = e.request.length();
    return requestsInFlight < limits.maxRequests()
        && bytesInFlight + len <= limits.maxBytesInFlight()
        && bytesHeld.get() + len <= limits.maxBytesHeld()
        && (busyPeers <= 1
            || q.inFlightBytes == 0
            || q.inFlightBytes + len <= limits.maxBytesPerPeer());
  }

  private Entry waitingEntry(SegmentRequest request) {
    PeerQueue q = byPeer.get(request.peer());
    if (q != null) {
      for (Entry e : q.entries) {
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
  private Admission admitEntry(Entry e, boolean mustGo) throws InterruptedException {
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
    bytesHeld.addAndGet(len);
    inFlight(e, 1);
    return new Admission(true, post(e));
  }

  /** Counts {@code e} in (sign 1) or out of (-1) the window and its owner's share. */
  private void inFlight(Entry e, int sign) {
    long len = e.request.length();
    requestsInFlight += sign;
    bytesInFlight += sign * len;
    e.queue.inFlightBytes += sign * len;
  }

  /**
   * Posts the READs of one admitted request on an open connection, or parks it until one opened in
   * the background is there; a connection failure is retried or handed over.
   */
  private Failed post(Entry e) {
    e.failure.set(null);
    e.openFailure = null;
    ReadChannel channel;
    try {
      channel =
          connections.channelNow(
              e.request.peer(), e.request.application(), () -> arrived(CHANNEL_OPENED));
    } catch (TransportException ex) {
      e.openFailure = ex;
      e.attempts++;
      inFlight(e, -1);
      return retryOrFail(e, ex);
    }
    if (channel == null) {
      connecting.add(e);
      return null;
    }
    e.attempts++;
    e.channel = channel;
    List<ReadOp> ops = new ArrayList<>(2);
    long start = e.request.offset();
    e.request
        .file()
        .segments(
            start,
            e.request.length(),
            (fileOffset, address, rkey, n) ->
                ops.add(
                    new ReadOp()
                        .set(address, rkey, n, e.buffer, (int) (fileOffset - start), e)
                        .attach(e.request.tag())));
    e.parts.set(ops.size());
    lastPosted = channel;
    channel.postAll(ops);
    return null;
  }

  /**
   * A connection open ended: posts what waited for it. A failed open fails (or retries) every
   * request that waited for that owner, once: not one new open per request. The first result is
   * returned, the others wait in {@link #results}.
   */
  private Result postConnecting() {
    Map<PeerAddress, TransportException> failedOpens = new HashMap<>();
    for (int n = connecting.size(); n > 0; n--) {
      Entry e = connecting.pollFirst();
      TransportException known = failedOpens.get(e.request.peer());
      Failed f;
      if (known != null) {
        e.attempts++;
        inFlight(e, -1);
        f = retryOrFail(e, known);
      } else {
        f = post(e);
        if (e.openFailure != null) {
          failedOpens.put(e.request.peer(), e.openFailure);
        }
      }
      if (f != null) {
        results.add(f);
      }
    }
    return results.poll();
  }

  /** A request whose READs all ended: its result, or null when it waits for a retry. */
  private Result finish(Entry e) {
    inFlight(e, -1);
    TransportException f = e.failure.get();
    if (f == null) {
      return new FetchedSegment(
          e.request, e.buffer, () -> bytesHeld.addAndGet(-e.request.length()));
    }
    return retryOrFail(e, f);
  }

  private Failed retryOrFail(Entry e, TransportException cause) {
    if (cause instanceof RemoteAccessException || e.attempts > limits.maxRetries()) {
      return abandon(e, cause);
    }
    onRetry.run();
    e.notBefore = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limits.retryWaitMillis());
    retrying.addLast(e);
    return null;
  }

  private Failed abandon(Entry e, TransportException cause) {
    bytesHeld.addAndGet(-e.request.length());
    e.buffer.release();
    e.buffer = null;
    return new Failed(e.request, cause);
  }

  /** Bytes admitted and not yet released by the consumer (tests, metrics). */
  public long bytesHeld() {
    return bytesHeld.get();
  }

  /** Bytes admitted whose READs have not ended (tests, metrics). */
  public long bytesInFlight() {
    return bytesInFlight;
  }

  /**
   * Drops what is waiting; READs in flight release their buffers when they end. Results already
   * handed out stay valid until released.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      byPeer.clear();
      rotation.clear();
      for (Entry e : retrying) {
        bytesHeld.addAndGet(-e.request.length());
        e.buffer.release();
      }
      retrying.clear();
      for (Entry e : connecting) {
        bytesHeld.addAndGet(-e.request.length());
        e.buffer.release();
      }
      connecting.clear();
      outstanding = 0;
      dropFinished();
    }
  }

  /** After close: releases the buffers of requests whose READs ended. Any thread. */
  private void dropFinished() {
    Event o;
    while ((o = done.poll()) != null) {
      if (o instanceof Entry e && e.buffer != null) {
        bytesHeld.addAndGet(-e.request.length());
        e.buffer.release();
        e.buffer = null;
      }
    }
  }
}
