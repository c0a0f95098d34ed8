package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegistrationException;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Fetches byte ranges ("segments") of files that peers registered, into pooled registered buffers,
 * for one consumer: a Spark reduce task, a MapReduce fetcher thread. The engine-neutral core of
 * both readers.
 *
 * <p>The consumer {@link #add}s requests and {@link #take}s results, on its own thread: that thread
 * admits requests (allocates buffers, posts READs) as the bounds allow, so transport threads never
 * block. Bytes count as held from admission until the consumer releases the segment ({@link
 * FetchedSegment#release()}): the fetcher's registered memory never exceeds its byte bound plus one
 * segment, whatever order segments arrive in and however slowly the consumer reads them. The one
 * segment beyond the bound is what the consumer can't go on without: the segment it names in {@link
 * #take} (the next one of a stream it reads), or, when nothing is in flight, the next request in
 * line.
 *
 * <p>Failures, and whose they are. A READ that fails in the transport (connection lost,
 * unreachable, timeout) is retried on a fresh connection up to {@code maxRetries} times, {@code
 * retryWait} apart (as Spark's {@code spark.shuffle.io.maxRetries}/{@code retryWait}), then handed
 * to the consumer as {@link Failed}. A READ the owner refused ({@link RemoteAccessException}: the
 * registration was withdrawn) is handed over at once: the consumer asks the owner where to READ it
 * now. When no buffer can be had within the allocation wait, the consumer gets a {@link Failed}
 * whose cause is a {@link Shortage}: the reader's own problem, never the peer's. Other threads may
 * hand the consumer events through {@link #signal}.
 *
 * <p>Not thread-safe except {@link #signal} and {@link FetchedSegment#release()}.
 */
public final class SegmentFetcher implements AutoCloseable {
  private final ConnectionPool connections;
  private final BufferPool buffers;
  private final SegmentLimits limits;
  private final ArrayDeque<Entry> waiting = new ArrayDeque<>();

  /** Failed READs waiting for their retry, in order of when they may go. */
  private final ArrayDeque<Entry> retrying = new ArrayDeque<>();

  private final LinkedBlockingQueue<Object> done = new LinkedBlockingQueue<>();
  private final AtomicLong bytesHeld = new AtomicLong();
  private final AtomicInteger requestsHeld = new AtomicInteger();

  /** Requests posted whose READs have not all ended. Consumer thread only. */
  private int inFlight;

  /** Where the last READs went: the consumer helps it find completions before it blocks. */
  private ReadChannel lastPosted;

  private final AtomicBoolean closed = new AtomicBoolean();
  private final Runnable onRetry;
  private int outstanding;

  /** A result of {@link #take}. */
  public sealed interface Result
      permits FetchedSegment, SegmentFetcher.Failed, SegmentFetcher.Signal {}

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
  public record Signal(Object event) implements Result {}

  /** One request on its way: its buffer, its READs, its outcome. */
  private final class Entry implements ReadListener {
    final SegmentRequest request;
    int attempts;
    long notBefore;
    PooledBuffer buffer;
    ReadChannel channel;
    final AtomicInteger parts = new AtomicInteger();
    final AtomicReference<TransportException> failure = new AtomicReference<>();

    Entry(SegmentRequest request) {
      this.request = request;
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
        done.add(this);
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

  /** Queues a request; it is admitted by a later {@link #take}. */
  public void add(SegmentRequest request) {
    if (closed.get()) {
      throw new IllegalStateException("segment fetcher is closed");
    }
    waiting.add(new Entry(request));
    outstanding++;
  }

  /** Hands {@code event} to the consumer's next {@link #take}, as a {@link Signal}. Any thread. */
  public void signal(Object event) {
    done.add(new Signal(event));
  }

  /** Requests added and not yet returned by {@link #take}. */
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
    if (closed.get()) {
      throw new IllegalStateException("segment fetcher is closed");
    }
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      Result r = admit(needed);
      if (r != null) {
        outstanding--;
        return r;
      }
      long wait = Math.min(50_000_000L, Math.max(0, deadline - System.nanoTime()));
      if (!retrying.isEmpty()) {
        wait = Math.min(wait, Math.max(0, retrying.peekFirst().notBefore - System.nanoTime()));
      }
      if (inFlight > 0 && lastPosted != null && done.isEmpty()) {
        // whoever waits polls (verbs): a READ that ends within the transport's wait spin is found
        // by this thread, which then needs no wake-up
        lastPosted.helpUntil(() -> !done.isEmpty(), wait);
      }
      Object e = done.poll(wait, TimeUnit.NANOSECONDS);
      if (e instanceof Signal s) {
        return s;
      }
      if (e != null) {
        r = finish((Entry) e);
        if (r != null) {
          outstanding--;
          return r;
        }
      } else if (System.nanoTime() - deadline >= 0) {
        return null;
      }
    }
  }

  /**
   * Posts retries that are due, then {@code needed} if it waits, then waiting requests while the
   * bounds allow (the first of them beyond the bounds when nothing is in flight: else nothing would
   * ever arrive).
   */
  private Result admit(SegmentRequest needed) throws InterruptedException {
    long now = System.nanoTime();
    while (!retrying.isEmpty() && now - retrying.peekFirst().notBefore >= 0) {
      Failed f = post(retrying.pollFirst());
      if (f != null) {
        return f;
      }
    }
    if (needed != null) {
      for (java.util.Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
        Entry e = it.next();
        if (e.request == needed) {
          it.remove();
          waiting.addFirst(e);
          Result r = admitHead(true);
          if (r != null) {
            return r;
          }
          break;
        }
      }
    }
    while (!waiting.isEmpty()) {
      Entry head = waiting.peekFirst();
      boolean room =
          requestsHeld.get() < limits.maxRequests()
              && bytesHeld.get() + head.request.length() <= limits.maxBytes();
      // nothing would ever arrive unless the head goes: then it goes, waiting for a buffer
      boolean stuck = needed == null && inFlight == 0;
      if (!room && !stuck) {
        return null;
      }
      Result r = admitHead(stuck);
      if (r != null || waiting.peekFirst() == head || !room) {
        // a result; or no buffer free now (READs that end will free some); or one beyond
        return r;
      }
    }
    return null;
  }

  /**
   * Admits the first waiting request: allocates its buffer (waiting for one when {@code mustGo},
   * else only if one is free now) and posts it. Returns a result that needs no READ (empty segment,
   * failure), or null.
   */
  private Result admitHead(boolean mustGo) throws InterruptedException {
    Entry e = waiting.peekFirst();
    int len = e.request.length();
    if (len == 0) {
      waiting.pollFirst();
      return new FetchedSegment(e.request, null, () -> {});
    }
    PooledBuffer b;
    try {
      b =
          mustGo
              ? buffers.allocate(len, limits.allocationWaitMillis(), TimeUnit.MILLISECONDS)
              : buffers.tryAllocate(len);
    } catch (RegistrationException | IllegalArgumentException ex) {
      waiting.pollFirst();
      return new Failed(
          e.request,
          new Shortage(
              "no registered buffer for a segment of " + len + " bytes: " + ex.getMessage(), ex));
    }
    if (b == null) {
      if (!mustGo) {
        return null;
      }
      waiting.pollFirst();
      return new Failed(
          e.request,
          new Shortage(
              "no registered buffer of "
                  + len
                  + " bytes within "
                  + limits.allocationWaitMillis()
                  + " ms (the process's READ"
                  + " buffers are all in use)",
              null));
    }
    waiting.pollFirst();
    e.buffer = b;
    held(len, 1);
    return post(e);
  }

  /** Posts the READs of one admitted request; a connection failure is retried or handed over. */
  private Failed post(Entry e) {
    e.attempts++;
    e.failure.set(null);
    try {
      // a retry goes to a freshly opened connection when the failure broke the old one
      e.channel =
          e.channel == null || e.channel.isOpen()
              ? connections.channel(e.request.peer(), e.request.application())
              : connections.replace(e.channel);
    } catch (TransportException ex) {
      return retryOrFail(e, ex);
    }
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
    inFlight++;
    lastPosted = e.channel;
    e.channel.postAll(ops);
    return null;
  }

  /** A request whose READs all ended: its result, or null when it waits for a retry. */
  private Result finish(Entry e) {
    inFlight--;
    TransportException f = e.failure.get();
    if (f == null) {
      return new FetchedSegment(e.request, e.buffer, () -> held(e.request.length(), -1));
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
    held(e.request.length(), -1);
    e.buffer.release();
    e.buffer = null;
    return new Failed(e.request, cause);
  }

  private void held(long bytes, int requests) {
    bytesHeld.addAndGet(requests >= 0 ? bytes : -bytes);
    requestsHeld.addAndGet(requests);
  }

  /** Bytes admitted and not yet released by the consumer (tests, metrics). */
  public long bytesHeld() {
    return bytesHeld.get();
  }

  /**
   * Drops what is waiting; READs in flight release their buffers when they end. Results already
   * handed out stay valid until released.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      waiting.clear();
      for (Entry e : retrying) {
        held(e.request.length(), -1);
        e.buffer.release();
      }
      retrying.clear();
      outstanding = 0;
      dropFinished();
    }
  }

  /** After close: releases the buffers of requests whose READs ended. Any thread. */
  private void dropFinished() {
    Object o;
    while ((o = done.poll()) != null) {
      if (o instanceof Entry e && e.buffer != null) {
        held(e.request.length(), -1);
        e.buffer.release();
        e.buffer = null;
      }
    }
  }
}
