package io.rdmashuffle.memory;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registered buffer lent by a {@link BufferPool}: a slice of a registered chunk (or a
 * registration of its own when larger than a chunk), reference counted. The pool creates one
 * handle per slice and reuses it, so lending a buffer makes no garbage.
 *
 * <p>One owner at a time: the borrower holds the first reference; a READ into the buffer holds
 * its region (not the buffer) while in flight. {@link #release()} by the last holder returns the
 * buffer to the pool; using it afterwards is a bug.
 */
public final class PooledBuffer {
  final BufferPool pool;
  final BufferPool.Chunk chunk;
  final int slot;
  private final RegisteredRegion region;
  private final int regionOffset;
  private final int capacity;
  private final ByteBuffer view;
  private final AtomicInteger refs = new AtomicInteger();
  private int size;
  /** Where it was lent, when leak detection is on. */
  Throwable lentAt;

  PooledBuffer(
      BufferPool pool,
      BufferPool.Chunk chunk,
      int slot,
      RegisteredRegion region,
      int regionOffset,
      int capacity) {
    this.pool = pool;
    this.chunk = chunk;
    this.slot = slot;
    this.region = region;
    this.regionOffset = regionOffset;
    this.capacity = capacity;
    ByteBuffer whole = region.memory().buffer().duplicate();
    whole.limit(regionOffset + capacity).position(regionOffset);
    this.view = whole.slice();
  }

  void lend(int requested) {
    this.size = requested;
    refs.set(1);
    view.clear().limit(requested);
  }

  /** The registered region this buffer lies in; READs target {@code (region, regionOffset)}. */
  public RegisteredRegion region() {
    return region;
  }

  /** Where this buffer starts in {@link #region()}. */
  public int regionOffset() {
    return regionOffset;
  }

  /** Bytes asked for when it was lent. */
  public int size() {
    return size;
  }

  /** Bytes it really has (its size class). */
  public int capacity() {
    return capacity;
  }

  /**
   * The buffer's memory, position 0 and limit {@link #size()} when lent. The same object is
   * returned every time; the borrower may change its position and limit.
   */
  public ByteBuffer buffer() {
    return view;
  }

  public int refCnt() {
    return refs.get();
  }

  public PooledBuffer retain() {
    while (true) {
      int r = refs.get();
      if (r <= 0) {
        throw new IllegalStateException("retain of a buffer already returned to its pool");
      }
      if (refs.compareAndSet(r, r + 1)) {
        return this;
      }
    }
  }

  /** Gives back one reference; the last one returns the buffer to its pool. */
  public void release() {
    int r = refs.decrementAndGet();
    if (r == 0) {
      pool.recycle(this);
    } else if (r < 0) {
      refs.incrementAndGet();
      throw new IllegalStateException("buffer released more often than retained");
    }
  }
}
