package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.memory.RegistrationException;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * Fetches byte ranges ("segments") of files that peers registered, into pooled registered
 * buffers, for one consumer: a Spark reduce task, a MapReduce fetcher thread. The engine-neutral
 * core of both readers.
 *
 * <p>The consumer {@link #add}s requests and {@link #take}s results, on its own thread: that
 * thread admits requests (allocates buffers, posts READs) as the bounds allow, so transport
 * threads never block. Bytes count as in flight from admission until {@link #take} hands their
 * result to the consumer, as Spark's {@code maxSizeInFlight} counts them (memory held by the
 * consumer after that is the consumer's to bound); a segment larger than the byte bound is
 * admitted alone. A READ that fails is retried once on a freshly opened
 * connection to the same peer; a second failure is handed to the consumer as {@link Failed}.
 *
 * <p>Not thread-safe except {@link Fetched#release()}, which any thread may call once.
 */
public final class SegmentFetcher implements AutoCloseable {
  private final ConnectionPool connections;
  private final BufferPool buffers;
  private final long maxBytes;
  private final int maxRequests;
  private final long allocationWaitMillis;
  private final ArrayDeque<Entry> waiting = new ArrayDeque<>();
  private final LinkedBlockingQueue<Entry> done = new LinkedBlockingQueue<>();
  private final AtomicLong bytesHeld = new AtomicLong();
  private final AtomicInteger requestsHeld = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private int outstanding;

  /** What to fetch: {@code length} bytes at {@code offset} of a file registered by {@code peer}. */
  public record Request(
      PeerAddress peer,
      String application,
      RegisteredFileDescriptor file,
      long offset,
      int length,
      Object tag) {
    public Request {
      if (length < 0 || offset < 0 || offset > file.fileLength() - length) {
        throw new IllegalArgumentException(
            "segment offset=" + offset + " length=" + length + ": outside the registered file of "
                + file.fileLength() + " bytes");
      }
    }
  }

  /** A result of {@link #take}. */
  public sealed interface Result permits Fetched, Failed {
    Request request();
  }

  /** The segment's bytes; {@link #release()} it when consumed. */
  public static final class Fetched implements Result {
    private final Request request;
    private final PooledBuffer buffer;
    private final ByteBuffer data;
    private final AtomicBoolean released = new AtomicBoolean();

    Fetched(Request request, PooledBuffer buffer) {
      this.request = request;
      this.buffer = buffer;
      this.data =
          buffer == null
              ? ByteBuffer.allocate(0)
              : buffer.buffer().duplicate().limit(request.length()).position(0).slice();
    }

    @Override
    public Request request() {
      return request;
    }

    /** The bytes, position 0, limit the segment's length. Valid until {@link #release()}. */
    public ByteBuffer data() {
      return data;
    }

    /** Returns the buffer to its pool. Idempotent. */
    public void release() {
      if (released.compareAndSet(false, true) && buffer != null) {
        buffer.release();
      }
    }
  }

  /**
   * The segment could not be fetched: a {@link TransportException} after a retry on a fresh
   * connection, or a {@link RegistrationException} when no registered buffer could be had.
   */
  public record Failed(Request request, IOException cause) implements Result {}

  /** One request on its way: its buffer, its READs, its outcome. */
  private final class Entry implements ReadListener {
    final Request request;
    int attempts;
    PooledBuffer buffer;
    ReadChannel channel;
    final AtomicInteger parts = new AtomicInteger();
    final AtomicReference<TransportException> failure = new AtomicReference<>();

    Entry(Request request) {
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
   * @param maxBytes bytes admitted and not yet taken by the consumer
   * @param maxRequests segments admitted and not yet taken
   * @param allocationWaitMillis how long to wait for pool memory when holding nothing else
   */
  public SegmentFetcher(
      ConnectionPool connections,
      BufferPool buffers,
      long maxBytes,
      int maxRequests,
      long allocationWaitMillis) {
    if (maxBytes <= 0 || maxRequests <= 0) {
      throw new IllegalArgumentException(
          "maxBytes=" + maxBytes + ", maxRequests=" + maxRequests + ": must be positive");
    }
    this.connections = connections;
    this.buffers = buffers;
    this.maxBytes = maxBytes;
    this.maxRequests = maxRequests;
    this.allocationWaitMillis = allocationWaitMillis;
  }

  /** Queues a request; it is admitted by a later {@link #take}. */
  public void add(Request request) {
    if (closed.get()) {
      throw new IllegalStateException("segment fetcher is closed");
    }
    waiting.add(new Entry(request));
    outstanding++;
  }

  /** Requests added and not yet returned by {@link #take}. */
  public int outstanding() {
    return outstanding;
  }

  /**
   * Admits what the bounds allow, then returns the next finished segment (in completion order),
   * or null when none finished within the timeout.
   *
   * @throws IllegalStateException when nothing is outstanding
   */
  public Result take(long timeout, TimeUnit unit) throws InterruptedException {
    if (closed.get()) {
      throw new IllegalStateException("segment fetcher is closed");
    }
    if (outstanding == 0) {
      throw new IllegalStateException("take() with nothing outstanding");
    }
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      Result r = admit();
      if (r != null) {
        outstanding--;
        return r;
      }
      Entry e = done.poll(Math.min(50, Math.max(0, deadline - System.nanoTime())),
          TimeUnit.NANOSECONDS);
      if (e != null) {
        r = finish(e);
        if (r != null) {
          outstanding--;
          return r;
        }
      } else if (System.nanoTime() >= deadline) {
        return null;
      }
    }
  }

  /** Posts waiting requests while the bounds allow; returns a result that needs no READ. */
  private Result admit() throws InterruptedException {
    while (!waiting.isEmpty()) {
      Entry e = waiting.peekFirst();
      int len = e.request.length();
      boolean idle = requestsHeld.get() == 0;
      if (!idle && (requestsHeld.get() >= maxRequests || bytesHeld.get() + len > maxBytes)) {
        return null;
      }
      if (len == 0) {
        waiting.pollFirst();
        return new Fetched(e.request, null);
      }
      PooledBuffer b;
      try {
        b = idle ? buffers.allocate(len, allocationWaitMillis, TimeUnit.MILLISECONDS)
            : buffers.tryAllocate(len);
      } catch (RegistrationException | IllegalArgumentException ex) {
        waiting.pollFirst();
        return new Failed(e.request, new RegistrationException(
            "no registered buffer for a segment of " + len + " bytes: " + ex.getMessage(), ex));
      }
      if (b == null) {
        if (idle) {
          waiting.pollFirst();
          return new Failed(e.request, new RegistrationException(
              "no registered buffer of " + len + " bytes within " + allocationWaitMillis + " ms"));
        }
        return null;
      }
      waiting.pollFirst();
      e.buffer = b;
      held(len, 1);
      Failed f = post(e);
      if (f != null) {
        return f;
      }
    }
    return null;
  }

  /** Posts the READs of one admitted request; a connection failure fails it at once. */
  private Failed post(Entry e) {
    e.attempts++;
    e.failure.set(null);
    try {
      // a retry goes to a freshly opened connection when the failure broke the old one
      e.channel = e.channel == null || e.channel.isOpen()
          ? connections.channel(e.request.peer(), e.request.application())
          : connections.replace(e.channel);
    } catch (TransportException ex) {
      if (e.attempts < 2) {
        return post(e);
      }
      return abandon(e, ex);
    }
    List<ReadOp> ops = new ArrayList<>(2);
    long start = e.request.offset();
    e.request.file().segments(start, e.request.length(), (fileOffset, address, rkey, n) ->
        ops.add(new ReadOp().set(address, rkey, n, e.buffer, (int) (fileOffset - start), e)
            .attach(e.request.tag())));
    e.parts.set(ops.size());
    e.channel.postAll(ops);
    return null;
  }

  /** A request whose READs all ended: its result, or null when it was posted again. */
  private Result finish(Entry e) {
    TransportException f = e.failure.get();
    if (f == null) {
      held(e.request.length(), -1);
      return new Fetched(e.request, e.buffer);
    }
    if (e.attempts < 2) {
      return post(e);
    }
    return abandon(e, f);
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

  /** Bytes admitted and not yet taken (tests, metrics). */
  public long bytesInFlight() {
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
      outstanding = 0;
      dropFinished();
    }
  }

  /** After close: releases the buffers of requests whose READs ended. Any thread. */
  private void dropFinished() {
    Entry e;
    while ((e = done.poll()) != null) {
      held(e.request.length(), -1);
      if (e.buffer != null) {
        e.buffer.release();
        e.buffer = null;
      }
    }
  }
}
