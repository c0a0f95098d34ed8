/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

/**
 * The {@link RefCounted} methods written once over a {@link RefCount}: a counted resource extends
 * this, hands it its count, and says in {@link #lastReleased()} what the release of its last
 * reference does (deregister a region, unmap a file, return a buffer to its pool, give a segment's
 * buffer back). {@code T} is the resource's own class, so that {@link #retain()} returns it.
 */
public abstract class CountedResource<T extends CountedResource<T>> implements RefCounted {
  private final RefCount refs;

  protected CountedResource(RefCount refs) {
    this.refs = refs;
  }

  /** The count itself, for a resource that revives or closes it. */
  protected final RefCount refs() {
    return refs;
  }

  @Override
  public final int refCnt() {
    return refs.get();
  }

  /**
   * Takes one more reference for another holder.
   *
   * @throws IllegalStateException when the resource is freed (or closed)
   */
  @Override
  public final T retain() {
    refs.retain();
    @SuppressWarnings("unchecked")
    T self = (T) this;
    return self;
  }

  @Override
  public final boolean tryRetain() {
    return refs.tryRetain();
  }

  /**
   * Gives back one reference; the last one runs {@link #lastReleased()} and returns true.
   *
   * @throws IllegalStateException when no reference is held (the count is left unchanged)
   */
  @Override
  public final boolean release() {
    if (refs.release()) {
      lastReleased();
      return true;
    }
    return false;
  }

  /**
   * A withdrawable resource's {@code close()}: gives back the owner's reference (new uses are
   * refused from now on), runs {@code withdraw}, and frees when no in-flight user is left.
   * Idempotent: only the first call does anything.
   */
  protected final void closeCount(Runnable withdraw) {
    RefCount.Close c = refs.close();
    if (c == RefCount.Close.ALREADY_CLOSED) {
      return;
    }
    withdraw.run();
    if (c == RefCount.Close.FREE_NOW) {
      lastReleased();
    }
  }

  /** Runs once per life of the count, after the release of its last reference. */
  protected abstract void lastReleased();
}
