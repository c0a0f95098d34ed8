/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;
import io.rdmashuffle.fetch.Locates.Call;
import io.rdmashuffle.fetch.Locates.Retry;
import io.rdmashuffle.mapoutput.LocateAnswer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The locate calls of one {@link Locates} on their way: sends each (after what the reader is done
 * with at that owner: {@link ReaderLeases#calling}), counts those not yet answered, and asks again
 * after a wait: the retry wait after a failure (while attempts are left), a growing backoff while
 * the owner is busy (while the reader's patience lasts). Answers and due retries come back on the
 * driver as signals of the segment fetcher. Driver only.
 */
final class LocateCalls {
  private final FetchContext ctx;
  private final Locator locator;
  private final ReaderLeases leases;

  /** Calls sent and not yet answered, and calls waiting to be sent again. */
  private int outstanding;

  LocateCalls(FetchContext ctx, Locator locator, ReaderLeases leases) {
    this.ctx = ctx;
    this.locator = locator;
    this.leases = leases;
  }

  /** Whether no call is unanswered and none waits to be sent again. */
  boolean idle() {
    return outstanding == 0;
  }

  /** Sends {@code c}; its answer (or failure) comes back to the driver as a signal. */
  void send(Call c) {
    leases.calling(c.owner);
    outstanding++;
    ctx.counters.increment(ReadCounter.LOCATES);
    CompletableFuture<LocateAnswer> f;
    try {
      f = locator.locate(c.owner.address(), ctx.application, c.request(leases.reader()));
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete(
        (a, t) -> {
          c.answer = a;
          c.failure = t;
          ctx.segments.signal(c);
        });
  }

  /** The consumer's thread: {@code c} was answered (or failed). */
  void answered(Call c) {
    outstanding--;
    leases.answered(c.owner);
  }

  /** Asks again after the retry wait, or gives up with {@code failure}. */
  void retry(Call c, List<LocatePart> parts, boolean local, Kind kind, String why, Throwable cause)
      throws BlockFetchException {
    if (c.attempt >= ctx.options.maxRetries()) {
      LocatePart p = parts.get(0);
      throw ctx.counters.failure(
          kind, p.source(), p.first(), why + " (after " + (c.attempt + 1) + " attempts)", cause);
    }
    ctx.counters.increment(ReadCounter.RETRIES);
    outstanding++;
    Call again = new Call(c.owner, parts, local, c.reissue, c.attempt + 1);
    // the wait runs on a timer thread; the call itself is made on the consumer's thread
    CompletableFuture.delayedExecutor(ctx.options.retryWaitMillis(), TimeUnit.MILLISECONDS)
        .execute(() -> ctx.segments.signal(new Retry(again)));
  }

  /**
   * The owner is busy (every registration it may hold is leased to readers still READing): asks
   * again later, backing off, for as long as the reader's patience lasts; nobody is at fault, so
   * the attempts of real failures are not used up. Past its patience the task fails by itself,
   * blaming no map output.
   */
  void busy(Call c, List<LocatePart> parts, String message) throws BlockFetchException {
    long now = System.nanoTime();
    long since = c.busySince == 0 ? now : c.busySince;
    long waited = now - since;
    if (waited > TimeUnit.MILLISECONDS.toNanos(ctx.options.patienceMillis())) {
      throw ctx.counters.failure(
          Kind.BUSY,
          parts.get(0).source(),
          parts.get(0).first(),
          c.owner.address()
              + " was busy for "
              + TimeUnit.NANOSECONDS.toMillis(waited)
              + " ms: "
              + message,
          null);
    }
    ctx.counters.increment(ReadCounter.BUSY_ANSWERS);
    leases.flush(c.owner); // what this reader is done with makes room for what it waits for
    outstanding++;
    Call again = new Call(c.owner, parts, c.local, c.reissue, c.attempt);
    again.busySince = since;
    // 50 ms, doubling with the time waited, never beyond the retry wait
    long backoff =
        Math.min(
            Math.max(50, ctx.options.retryWaitMillis()),
            Math.max(50, TimeUnit.NANOSECONDS.toMillis(waited)));
    CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS)
        .execute(() -> ctx.segments.signal(new Retry(again)));
  }

  /** The consumer's thread: a retry is due. */
  void due(Retry r) {
    outstanding--;
    send(r.call());
  }
}
