package io.rdmashuffle.memory;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A piece of memory registered with a transport: the unit that READs address, by
 * {@code (address, rkey)} remotely or {@code (address, lkey)} locally.
 *
 * <p>Lifetime: the registrar creates it with one reference, held by whoever registered it. Work
 * that may touch the memory (a READ being served from it, a READ writing into it) takes a
 * reference with {@link #tryRetain()} and gives it back with {@link #release()}. {@link #close()}
 * withdraws the region at once (new READs of it fail as deregistered) but the memory is
 * deregistered and freed only when the last reference is released, so in-flight work never
 * touches freed memory.
 */
public abstract class RegisteredRegion implements AutoCloseable {
  private static final int CLOSED = Integer.MIN_VALUE / 2;

  private final MemoryPiece memory;
  private final Access access;
  private final String owner;
  private final long address;
  private final int rkey;
  private final int lkey;
  /** References; {@link #CLOSED} is added once by close(), so a closed count is negative. */
  private final AtomicInteger refs = new AtomicInteger(1);
  private final Runnable onFreed;

  /**
   * @param onFreed run once after deregistration, when the memory may be released (unmapped,
   *     freed) by whoever owns it
   */
  protected RegisteredRegion(
      MemoryPiece memory,
      Access access,
      String owner,
      long address,
      int rkey,
      int lkey,
      Runnable onFreed) {
    this.onFreed = onFreed;
    this.memory = memory;
    this.access = access;
    this.owner = owner;
    this.address = address;
    this.rkey = rkey;
    this.lkey = lkey;
  }

  public final MemoryPiece memory() {
    return memory;
  }

  public final Access access() {
    return access;
  }

  /** The application whose authenticated peers may READ this region (REMOTE_READ only). */
  public final String owner() {
    return owner;
  }

  /** Address of the first byte as READs name it. */
  public final long address() {
    return address;
  }

  public final int length() {
    return memory.length();
  }

  /** Remote key; meaningful for {@link Access#REMOTE_READ} only. A capability: never log it. */
  public final int rkey() {
    return rkey;
  }

  public final int lkey() {
    return lkey;
  }

  /** Whether {@code [address, address + len)} lies inside this region. */
  public final boolean contains(long addr, long len) {
    return len >= 0 && addr >= address && addr - address <= length() - len;
  }

  /** Describes this region for a remote reader (address, length, rkey). */
  public final RegionDescriptor descriptor() {
    return new RegionDescriptor(address, length(), rkey);
  }

  public final boolean isOpen() {
    return refs.get() > 0;
  }

  /** Takes a reference for work touching the memory; false when the region is closed. */
  public final boolean tryRetain() {
    while (true) {
      int r = refs.get();
      if (r <= 0) {
        return false;
      }
      if (refs.compareAndSet(r, r + 1)) {
        return true;
      }
    }
  }

  /** Gives back a reference taken by {@link #tryRetain()}. */
  public final void release() {
    int r = refs.decrementAndGet();
    if (r == CLOSED) {
      free();
    } else if (r == 0 || r < CLOSED) {
      throw new IllegalStateException("region released more often than retained");
    }
  }

  /**
   * Withdraws the region: from now on READs of it fail as deregistered. The memory is
   * deregistered when in-flight work finishes. Idempotent.
   */
  @Override
  public final void close() {
    while (true) {
      int r = refs.get();
      if (r <= 0) {
        return;
      }
      if (refs.compareAndSet(r, r - 1 + CLOSED)) {
        withdraw();
        if (r - 1 == 0) {
          free();
        }
        return;
      }
    }
  }

  /** Called once, at close: stop new READs of this region from being served. */
  protected abstract void withdraw();

  /** Called once, when closed and no work holds a reference: deregister. */
  protected abstract void deregister();

  private void free() {
    try {
      deregister();
    } finally {
      onFreed.run();
    }
  }
}
