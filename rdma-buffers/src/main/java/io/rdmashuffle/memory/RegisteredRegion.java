/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

/**
 * A piece of memory registered with a transport: the unit that READs address, by {@code (address,
 * rkey)} remotely or {@code (address, lkey)} locally.
 *
 * <p>Lifetime: the registrar creates it with one reference, held by whoever registered it. Work
 * that may touch the memory (a READ being served from it, a READ writing into it) takes a reference
 * with {@link #tryRetain()} and gives it back with {@link #release()}. {@link #close()} withdraws
 * the region at once (new READs of it fail as deregistered) but the memory is deregistered and
 * freed only when the last reference is released, so in-flight work never touches freed memory. The
 * count is a withdrawable {@link RefCount}: see {@link RefCounted}.
 */
public abstract class RegisteredRegion extends CountedResource<RegisteredRegion>
    implements AutoCloseable {
  private final MemoryPiece memory;
  private final Access access;
  private final String owner;
  private final long address;
  private final int rkey;
  private final int lkey;
  private final Runnable onFreed;
  private final LeakDetector.Tracker tracker;

  /**
   * @param onFreed run once after deregistration, when the memory may be released (unmapped, freed)
   *     by whoever owns it
   */
  protected RegisteredRegion(
      MemoryPiece memory,
      Access access,
      String owner,
      long address,
      int rkey,
      int lkey,
      Runnable onFreed) {
    super(RefCount.withdrawable("registered region"));
    this.onFreed = onFreed;
    this.memory = memory;
    this.access = access;
    this.owner = owner;
    this.address = address;
    this.rkey = rkey;
    this.lkey = lkey;
    this.tracker =
        LeakDetector.track(
            this,
            LeakDetector.Kind.REGION,
            "registered region of "
                + memory.length()
                + " bytes ("
                + access
                + (memory.isFile() ? ", file" : "")
                + ")");
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
    return refs().isOpen();
  }

  /**
   * Withdraws the region: from now on READs of it fail as deregistered. The memory is deregistered
   * when in-flight work finishes. Idempotent.
   */
  @Override
  public final void close() {
    closeCount(this::withdraw);
  }

  /** Called once, at close: stop new READs of this region from being served. */
  protected abstract void withdraw();

  /** Called once, when closed and no work holds a reference: deregister. */
  protected abstract void deregister();

  /** A pool's chunk: the pool accounts for it, so the leak check lists the pool, not this. */
  final void heldByPool() {
    if (tracker != null) {
      tracker.heldByOwner();
    }
  }

  /** Closed and no work holds a reference: deregister, then tell whoever frees the memory. */
  @Override
  protected final void lastReleased() {
    try {
      deregister();
    } finally {
      try {
        onFreed.run();
      } finally {
        LeakDetector.untrack(tracker, this);
      }
    }
  }
}
