/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.SegmentFetcher.Failed;
import io.rdmashuffle.fetch.SegmentFetcher.Result;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Posts the READs of the requests a {@link SegmentFetcher} admitted: on an open connection, or
 * parked until one opened in the background ({@link ConnectionPool#channelNow}) is there. A request
 * whose READs failed in the transport is tried again, on a fresh connection, {@code retryWait}
 * later, up to {@code maxRetries} times; one the owner refused ({@link RemoteAccessException}) or
 * out of retries is abandoned (its buffer given back) and handed over as {@link Failed}. The
 * consumer's thread only.
 */
final class ReadPoster {
  private final ConnectionPool connections;
  private final SegmentLimits limits;
  private final SegmentWindow window;
  private final Runnable onRetry;

  /** Told (on the thread that opened it) that a connection opened in the background is there. */
  private final Runnable channelOpened;

  /** Failed READs waiting for their retry, in order of when they may go. */
  private final ArrayDeque<SegmentRead> retrying = new ArrayDeque<>();

  /** Admitted requests waiting for a connection being opened in the background. */
  private final ArrayDeque<SegmentRead> connecting = new ArrayDeque<>();

  /** Where the last READs went: the consumer helps it find completions before it blocks. */
  private ReadChannel lastPosted;

  /**
   * @param onRetry told each time a READ is tried again (counters)
   */
  ReadPoster(
      ConnectionPool connections,
      SegmentLimits limits,
      SegmentWindow window,
      Runnable onRetry,
      Runnable channelOpened) {
    this.connections = connections;
    this.limits = limits;
    this.window = window;
    this.onRetry = onRetry;
    this.channelOpened = channelOpened;
  }

  /** Where the last READs went, or null. */
  ReadChannel lastPosted() {
    return lastPosted;
  }

  /** {@code wait} (nanos), or less when a retry is due before it. */
  long untilNextRetry(long wait) {
    if (!retrying.isEmpty()) {
      wait = Math.min(wait, Math.max(0, retrying.peekFirst().notBefore - System.nanoTime()));
    }
    return wait;
  }

  /** Posts the retries that are due: the first failure, or null. */
  Failed postDue() {
    long now = System.nanoTime();
    while (!retrying.isEmpty() && now - retrying.peekFirst().notBefore >= 0) {
      SegmentRead e = retrying.pollFirst();
      window.inFlight(e, 1);
      Failed f = post(e);
      if (f != null) {
        return f;
      }
    }
    return null;
  }

  /**
   * Posts the READs of one admitted request on an open connection, or parks it until one opened in
   * the background is there; a connection failure is retried or handed over.
   */
  Failed post(SegmentRead e) {
    e.failure.set(null);
    e.openFailure = null;
    ReadChannel channel;
    try {
      channel = connections.channelNow(e.request.peer(), e.request.application(), channelOpened);
    } catch (TransportException ex) {
      e.openFailure = ex;
      e.attempts++;
      window.inFlight(e, -1);
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
   * request that waited for that owner, once: not one new open per request. The failures go to
   * {@code failures}.
   */
  void postConnecting(Collection<? super Failed> failures) {
    Map<PeerAddress, TransportException> failedOpens = new HashMap<>();
    for (int n = connecting.size(); n > 0; n--) {
      SegmentRead e = connecting.pollFirst();
      TransportException known = failedOpens.get(e.request.peer());
      Failed f;
      if (known != null) {
        e.attempts++;
        window.inFlight(e, -1);
        f = retryOrFail(e, known);
      } else {
        f = post(e);
        if (e.openFailure != null) {
          failedOpens.put(e.request.peer(), e.openFailure);
        }
      }
      if (f != null) {
        failures.add(f);
      }
    }
  }

  /** A request whose READs all ended: its result, or null when it waits for a retry. */
  Result finish(SegmentRead e) {
    window.inFlight(e, -1);
    TransportException f = e.failure.get();
    if (f == null) {
      return new FetchedSegment(e.request, e.buffer, () -> window.release(e.request.length()));
    }
    return retryOrFail(e, f);
  }

  private Failed retryOrFail(SegmentRead e, TransportException cause) {
    if (cause instanceof RemoteAccessException || e.attempts > limits.maxRetries()) {
      return abandon(e, cause);
    }
    onRetry.run();
    e.notBefore = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limits.retryWaitMillis());
    retrying.addLast(e);
    return null;
  }

  private Failed abandon(SegmentRead e, TransportException cause) {
    window.release(e.request.length());
    e.buffer.release();
    e.buffer = null;
    return new Failed(e.request, cause);
  }

  /** The fetcher closes: gives back the buffers of what waits for a retry or a connection. */
  void dropWaiting() {
    for (SegmentRead e : retrying) {
      window.release(e.request.length());
      e.buffer.release();
    }
    retrying.clear();
    for (SegmentRead e : connecting) {
      window.release(e.request.length());
      e.buffer.release();
    }
    connecting.clear();
  }
}
