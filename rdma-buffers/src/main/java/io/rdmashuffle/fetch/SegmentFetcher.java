/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.RemoteAccessException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * <p>Its parts: {@link SegmentAdmission} admits requests, owners in turn, within what the {@link
 * SegmentWindow} allows; {@link ReadPoster} posts their READs and tries them again; each request on
 * its way is a {@link SegmentRead}. This class hands the consumer what arrives.
 *
 * <p>Not thread-safe except {@link #signal}, {@link #hasEvents} and {@link
 * FetchedSegment#release()}: one thread at a time calls the rest (the consumer's, or a driver
 * holding the consumer's lock).
 */
public final class SegmentFetcher implements AutoCloseable {
  /** What the admitted requests take of the bounds now. */
  private final SegmentWindow window;

  /** Posts the READs of admitted requests, and tries them again. */
  private final ReadPoster poster;

  /** Requests not yet admitted, by owner, and how they are admitted. */
  private final SegmentAdmission admission;

  /** Results found together (several failed at once), handed out one per call. */
  private final ArrayDeque<Result> results = new ArrayDeque<>();

  private final LinkedBlockingQueue<Event> done = new LinkedBlockingQueue<>();

  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Runnable onEvent = () -> {};
  private int outstanding;

  /** A result of {@link #take} or {@link #poll}. */
  public sealed interface Result permits FetchedSegment, Failed, Signal {}

  /** What other threads put on the fetcher's queue. */
  sealed interface Event permits SegmentRead, Signal, ChannelOpened {}

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

    /** Whether this process's own side of the transport failed: not the owner's fault. */
    public boolean ownSide() {
      return BlockFetchException.Kind.ofTransportFailure(cause)
          == BlockFetchException.Kind.OWN_SIDE;
    }
  }

  /** An event another thread handed to the consumer ({@link #signal}). */
  public record Signal(FetchSignal event) implements Result, Event {}

  /**
   * @param onRetry told each time a READ is tried again (counters)
   */
  public SegmentFetcher(
      ConnectionPool connections, BufferPool buffers, SegmentLimits limits, Runnable onRetry) {
    this.window = new SegmentWindow(limits);
    this.poster =
        new ReadPoster(connections, limits, window, onRetry, () -> arrived(CHANNEL_OPENED));
    this.admission = new SegmentAdmission(buffers, limits, window, poster, this::readEnded);
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
    admission.add(request);
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

  /** All the READs of {@code e} ended (on a transport thread): it goes to the consumer. */
  private void readEnded(SegmentRead e) {
    arrived(e);
    if (closed.get()) {
      dropFinished();
    }
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
      wait = poster.untilNextRetry(wait);
      ReadChannel lastPosted = poster.lastPosted();
      if (window.requestsInFlight() > 0 && lastPosted != null && done.isEmpty()) {
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
    if (e instanceof SegmentRead read) {
      return poster.finish(read);
    }
    // a connection open ended: a failed one fails every request that waited for that owner
    poster.postConnecting(results);
    return results.poll();
  }

  /**
   * Hands out a result found before, then posts retries that are due, then admits what waits
   * ({@link SegmentAdmission#admit}).
   */
  private Result admit(SegmentRequest needed, boolean mayWait) throws InterruptedException {
    if (!results.isEmpty()) {
      return results.poll();
    }
    Failed f = poster.postDue();
    if (f != null) {
      return f;
    }
    return admission.admit(needed, mayWait);
  }

  /** Bytes admitted and not yet released by the consumer (tests, metrics). */
  public long bytesHeld() {
    return window.bytesHeld();
  }

  /** Bytes admitted whose READs have not ended (tests, metrics). */
  public long bytesInFlight() {
    return window.bytesInFlight();
  }

  /**
   * Drops what is waiting; READs in flight release their buffers when they end. Results already
   * handed out stay valid until released.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      admission.clear();
      poster.dropWaiting();
      outstanding = 0;
      dropFinished();
    }
  }

  /** After close: releases the buffers of requests whose READs ended. Any thread. */
  private void dropFinished() {
    Event o;
    while ((o = done.poll()) != null) {
      if (o instanceof SegmentRead e && e.buffer != null) {
        window.release(e.request.length());
        e.buffer.release();
        e.buffer = null;
      }
    }
  }
}
