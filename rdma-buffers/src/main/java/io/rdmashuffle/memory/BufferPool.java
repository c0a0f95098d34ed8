/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Registered buffers by power-of-two size class, carved from large registered chunks (registration
 * is the expensive part, so a chunk is registered once and re-carved for another size class when it
 * is wholly free). A buffer larger than a chunk gets a registration of its own. Total registered
 * bytes never exceed {@code maxBytes}: beyond it {@link #tryAllocate} returns null and {@link
 * #allocate} waits (back-pressure, not a crash).
 *
 * <p>Thread-safe; one pool per process and registrar. A tracking pool (the default while the {@link
 * LeakDetector} is on) lends a fresh handle each time and tracks it until it comes back, so a
 * buffer dropped without its release is reported, a release of a handle already given back always
 * fails (it never meets the slot's next borrower), and {@link #leaks()} lists where the buffers
 * still out were lent. Otherwise each slot's handle is reused and lending makes no garbage.
 */
public final class BufferPool implements AutoCloseable {
  private final MemoryRegistrar registrar;
  private final int minSize;
  private final int chunkSize;
  private final long maxBytes;
  private final boolean tracking;
  private final LeakDetector.Tracker tracker;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();

  /** Per size class: chunks carved for it that have a free slot. */
  private final List<ArrayDeque<Chunk>> partial = new ArrayList<>();

  /** Registered chunks not carved for any class. */
  private final ArrayDeque<Chunk> idle = new ArrayDeque<>();

  /** Tracking pools: the trackers of buffers lent. */
  private final Set<LeakDetector.Tracker> lent = Collections.newSetFromMap(new IdentityHashMap<>());

  private long registeredBytes;
  private long lentBytes;
  private int chunks;
  private boolean closed;

  /**
   * @param tracking lend a fresh, tracked handle each time (see the class comment), whether or not
   *     the leak detector is on
   */
  public BufferPool(
      MemoryRegistrar registrar, long minSize, long chunkSize, long maxBytes, boolean tracking) {
    if (Long.bitCount(minSize) != 1 || Long.bitCount(chunkSize) != 1 || minSize > chunkSize) {
      throw new IllegalArgumentException(
          "minSize="
              + minSize
              + ", chunkSize="
              + chunkSize
              + ": both must be powers of two, minSize <= chunkSize");
    }
    if (chunkSize > (1 << 30) || maxBytes < chunkSize) {
      throw new IllegalArgumentException(
          "chunkSize="
              + chunkSize
              + ", maxBytes="
              + maxBytes
              + ": chunkSize must be <= 1g and <= maxBytes");
    }
    this.registrar = registrar;
    this.minSize = (int) minSize;
    this.chunkSize = (int) chunkSize;
    this.maxBytes = maxBytes;
    this.tracking = tracking;
    for (long s = minSize; s <= chunkSize; s <<= 1) {
      partial.add(new ArrayDeque<>());
    }
    String what = "buffer pool of up to " + maxBytes + " bytes";
    this.tracker =
        tracking
            ? LeakDetector.trackAlways(this, LeakDetector.Kind.POOL, what)
            : LeakDetector.track(this, LeakDetector.Kind.POOL, what);
  }

  /** A pool that tracks its buffers when the {@link LeakDetector} is on. */
  public BufferPool(MemoryRegistrar registrar, long minSize, long chunkSize, long maxBytes) {
    this(registrar, minSize, chunkSize, maxBytes, LeakDetector.isEnabled());
  }

  public long maxBytes() {
    return maxBytes;
  }

  public int chunkSize() {
    return chunkSize;
  }

  /**
   * Lends a buffer of at least {@code size} bytes, or returns null when that would take the pool's
   * registered memory beyond its bound (back-pressure).
   *
   * @throws RegistrationException when the transport refuses to register more memory
   */
  public PooledBuffer tryAllocate(int size) throws RegistrationException {
    checkSize(size);
    lock.lock();
    try {
      return allocateLocked(size);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Lends a buffer of at least {@code size} bytes, waiting up to {@code timeout} for other buffers
   * to be released when the pool is at its bound.
   *
   * @return the buffer, or null when the wait timed out
   * @throws IllegalArgumentException when {@code size} exceeds the pool's bound
   */
  public PooledBuffer allocate(int size, long timeout, TimeUnit unit)
      throws RegistrationException, InterruptedException {
    checkSize(size);
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    lock.lock();
    try {
      while (true) {
        PooledBuffer b = allocateLocked(size);
        if (b != null) {
          return b;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        released.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }

  private void checkSize(int size) {
    if (size <= 0) {
      throw new IllegalArgumentException("size=" + size + ": must be positive");
    }
    if (roundUp(size) > maxBytes) {
      throw new IllegalArgumentException(
          "size=" + size + ": larger than the pool's bound maxBytes=" + maxBytes);
    }
  }

  private long roundUp(int size) {
    return size <= chunkSize ? Math.max(minSize, Integer.highestOneBit(size - 1) << 1) : size;
  }

  private PooledBuffer allocateLocked(int size) throws RegistrationException {
    if (closed) {
      throw new IllegalStateException("buffer pool is closed");
    }
    PooledBuffer b = size > chunkSize ? allocateHuge(size) : allocateSlot(size);
    if (b != null) {
      b.lend(size);
      lentBytes += b.capacity();
      if (tracking) {
        b.tracker =
            LeakDetector.trackAlways(
                b,
                LeakDetector.Kind.BUFFER,
                "pooled buffer of " + size + " bytes (capacity " + b.capacity() + ")");
        lent.add(b.tracker);
      }
    }
    return b;
  }

  private PooledBuffer allocateSlot(int size) throws RegistrationException {
    int cls = sizeClass(size);
    ArrayDeque<Chunk> candidates = partial.get(cls);
    Chunk c = candidates.peekFirst();
    if (c == null) {
      c = idle.pollFirst();
      if (c == null) {
        if (registeredBytes + chunkSize > maxBytes && !freeIdle(chunkSize)) {
          return null;
        }
        c = newChunk(chunkSize);
      }
      c.carve(this, cls, minSize << cls);
      candidates.addFirst(c);
    }
    int slot = c.freeSlots[--c.freeCount];
    if (c.freeCount == 0) {
      candidates.pollFirst();
    }
    if (tracking) {
      // a handle of its own: a stale holder of an earlier one can never release this lend
      int slotSize = minSize << cls;
      return new PooledBuffer(this, c, slot, c.region, slot * slotSize, slotSize);
    }
    return c.slots[slot];
  }

  private PooledBuffer allocateHuge(int size) throws RegistrationException {
    if (registeredBytes + size > maxBytes && !freeIdle(size)) {
      return null;
    }
    Chunk c = newChunk(size);
    c.sizeClass = -2;
    return new PooledBuffer(this, c, 0, c.region, 0, size);
  }

  /** Deregisters idle chunks until {@code need} more bytes fit under the bound. */
  private boolean freeIdle(long need) {
    while (registeredBytes + need > maxBytes) {
      Chunk c = idle.pollFirst();
      if (c == null) {
        return false;
      }
      dropChunk(c);
    }
    return true;
  }

  private Chunk newChunk(int length) throws RegistrationException {
    java.nio.ByteBuffer memory = DirectMemory.allocate(length);
    RegisteredRegion region;
    try {
      region =
          registrar.register(
              MemoryPiece.of(memory), Access.LOCAL_WRITE, "", () -> DirectMemory.free(memory));
    } catch (RegistrationException | RuntimeException e) {
      DirectMemory.free(memory);
      throw e;
    }
    region.heldByPool();
    registeredBytes += length;
    chunks++;
    return new Chunk(region, length);
  }

  private void dropChunk(Chunk c) {
    registeredBytes -= c.length;
    chunks--;
    c.region.close();
  }

  private int sizeClass(int size) {
    int cls = 0;
    long s = minSize;
    while (s < size) {
      s <<= 1;
      cls++;
    }
    return cls;
  }

  void recycle(PooledBuffer b) {
    lock.lock();
    try {
      lentBytes -= b.capacity();
      if (b.tracker != null) {
        lent.remove(b.tracker);
        LeakDetector.untrack(b.tracker, b);
        b.tracker = null;
      }
      Chunk c = b.chunk;
      if (c.huge()) {
        dropChunk(c);
      } else {
        ArrayDeque<Chunk> candidates = partial.get(c.sizeClass);
        if (c.freeCount == 0) {
          candidates.addLast(c);
        }
        c.freeSlots[c.freeCount++] = b.slot;
        if (c.freeCount == c.slots.length) {
          candidates.remove(c);
          c.sizeClass = -1;
          c.slots = null;
          c.freeSlots = null;
          if (closed) {
            dropChunk(c);
          } else {
            idle.addLast(c);
          }
        }
      }
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Registered bytes held by the pool (lent or not). */
  public long registeredBytes() {
    lock.lock();
    try {
      return registeredBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of buffers currently lent (by size class, not by request). */
  public long lentBytes() {
    lock.lock();
    try {
      return lentBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Registered chunks (including registrations of single large buffers). */
  public int chunks() {
    lock.lock();
    try {
      return chunks;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Buffers lent and not released yet, each as a throwable whose stack says where it was lent
   * (tracking pools; otherwise always empty).
   */
  public List<Throwable> leaks() {
    lock.lock();
    try {
      List<Throwable> out = new ArrayList<>();
      for (LeakDetector.Tracker t : lent) {
        out.add(t.createdAt());
      }
      return out;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Deregisters every chunk that is not lent; chunks with lent buffers are deregistered when their
   * last buffer comes back. Idempotent.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      Chunk c;
      while ((c = idle.pollFirst()) != null) {
        dropChunk(c);
      }
      released.signalAll();
      LeakDetector.untrack(tracker, this);
    } finally {
      lock.unlock();
    }
  }
}
