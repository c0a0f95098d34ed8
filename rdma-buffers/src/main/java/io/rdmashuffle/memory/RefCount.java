/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The reference count behind every {@link RefCounted}: one atomic int changed only by
 * compare-and-set, so it never goes negative and a refused release leaves it as it was. One per
 * counted resource, owned by it; the resource runs its own freeing when a call here says so.
 *
 * <p>Values: {@code n > 0} open with {@code n} references; {@code 0} freed. A withdrawable count
 * (made with {@link #withdrawable}) is closed by adding {@link #CLOSED} once while dropping the
 * owner's reference, so {@code CLOSED + n} means closed with {@code n} in-flight references and
 * {@code CLOSED} itself means closed and freed. This gives "stop new uses now, free after the last
 * in-flight one" without a lock.
 */
public final class RefCount {
  /** Added once by {@link #close()}: a closed count is negative. */
  static final int CLOSED = Integer.MIN_VALUE / 2;

  /** Most references an open count may hold, so that closing it leaves a negative value. */
  static final int MAX_REFS = -CLOSED - 1;

  private static final AtomicIntegerFieldUpdater<RefCount> VALUE =
      AtomicIntegerFieldUpdater.newUpdater(RefCount.class, "value");

  /** What a {@link #close()} call did. */
  public enum Close {
    /** It was closed (or freed) already: nothing to do. */
    ALREADY_CLOSED,
    /** This call closed it; in-flight references remain: withdraw, but do not free yet. */
    STILL_IN_USE,
    /** This call closed it and held the last reference: withdraw and free now. */
    FREE_NOW
  }

  private final String what;
  private final boolean withdrawable;
  private volatile int value;

  /** Package-private for tests that need a count near its bound. */
  RefCount(String what, boolean withdrawable, int initial) {
    this.what = what;
    this.withdrawable = withdrawable;
    this.value = initial;
  }

  /**
   * A plain count, open with the creator's one reference; the release that drops it to zero frees.
   *
   * @param what names the resource in error messages ("pooled buffer")
   */
  public static RefCount open(String what) {
    return new RefCount(what, false, 1);
  }

  /** A plain count that starts freed, for a pooled object brought to life by {@link #revive()}. */
  public static RefCount freed(String what) {
    return new RefCount(what, false, 0);
  }

  /**
   * A count open with the owner's reference, which only {@link #close()} gives back; in-flight
   * references are taken with {@link #tryRetain()} and given back with {@link #release()}.
   */
  public static RefCount withdrawable(String what) {
    return new RefCount(what, true, 1);
  }

  /** References held now: in-flight ones only once closed; 0 when freed. */
  public int get() {
    int v = value;
    return v >= 0 ? v : v - CLOSED;
  }

  /** Whether new references may be taken: neither closed nor freed. */
  public boolean isOpen() {
    return value > 0;
  }

  /** Whether the resource was freed (the last reference released). */
  public boolean isFreed() {
    int v = value;
    return v == 0 || v == CLOSED;
  }

  /** Takes a reference unless closed or freed; whether it did. */
  public boolean tryRetain() {
    while (true) {
      int v = value;
      if (v <= 0) {
        return false;
      }
      if (v >= MAX_REFS) {
        throw new IllegalStateException(what + " refCnt=" + v + ": too many references");
      }
      if (VALUE.compareAndSet(this, v, v + 1)) {
        return true;
      }
    }
  }

  /**
   * Takes a reference for a holder that has one.
   *
   * @throws IllegalStateException when closed or freed
   */
  public void retain() {
    if (!tryRetain()) {
      throw new IllegalStateException(
          what + " refCnt=" + get() + ": retain of a resource that is " + state());
    }
  }

  /**
   * Gives back one reference.
   *
   * @return whether the resource must be freed now (this was the last reference)
   * @throws IllegalStateException when no reference is held (or, for a withdrawable count, when
   *     only the owner's is, which {@link #close()} gives back); the count is left unchanged
   */
  public boolean release() {
    while (true) {
      int v = value;
      if (v == 0 || v == CLOSED || (withdrawable && v == 1)) {
        throw new IllegalStateException(
            what + " refCnt=" + get() + ": released more often than retained (" + state() + ")");
      }
      int next = v - 1;
      if (VALUE.compareAndSet(this, v, next)) {
        return next == 0 || next == CLOSED;
      }
    }
  }

  /**
   * Withdrawable counts: drops the owner's reference and refuses new ones from now on. Idempotent:
   * only the first call gets anything but {@link Close#ALREADY_CLOSED}.
   */
  public Close close() {
    if (!withdrawable) {
      throw new IllegalStateException(what + ": a plain count is not closed, only released");
    }
    while (true) {
      int v = value;
      if (v <= 0) {
        return Close.ALREADY_CLOSED;
      }
      if (VALUE.compareAndSet(this, v, v - 1 + CLOSED)) {
        return v == 1 ? Close.FREE_NOW : Close.STILL_IN_USE;
      }
    }
  }

  /**
   * Pooled objects: brings a freed count back to life with one reference (the new borrower's).
   *
   * @throws IllegalStateException when the count is not freed: someone still holds it
   */
  public void revive() {
    if (withdrawable || !VALUE.compareAndSet(this, 0, 1)) {
      throw new IllegalStateException(what + " refCnt=" + get() + ": revived while " + state());
    }
  }

  private String state() {
    int v = value;
    if (v > 0) {
      return "open";
    }
    return v == 0 || v == CLOSED ? "freed" : "closed";
  }

  @Override
  public String toString() {
    return what + "[refCnt=" + get() + ", " + state() + "]";
  }
}
