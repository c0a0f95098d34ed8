/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

/**
 * A resource shared between threads by counting references, with one contract for all of them
 * (regions, pooled buffers, registered files, map outputs being read): whoever creates or lends it
 * holds the first reference; work that must keep it alive takes one more with {@link #tryRetain()}
 * (or {@link #retain()} when it already holds one) and gives it back with {@link #release()}; the
 * resource is freed by the release that drops the count to zero, exactly once. The count never goes
 * negative: a release of a freed resource throws and changes nothing.
 *
 * <p>A withdrawable resource (a registered region, a registered file) gives back its owner's
 * reference with {@code close()} instead: that stops new users at once ({@link #tryRetain()}
 * returns false from then on) and the resource is freed after the last in-flight user releases.
 * {@link RefCount} implements both forms.
 */
public interface RefCounted {
  /** References held now (in-flight ones only, once closed); 0 when freed. */
  int refCnt();

  /**
   * Takes one more reference for a holder that already has one.
   *
   * @throws IllegalStateException when the resource is closed or freed
   */
  RefCounted retain();

  /** Takes a reference unless the resource is closed or freed; whether it did. */
  boolean tryRetain();

  /**
   * Gives back one reference; the last one frees the resource.
   *
   * @return whether this release freed it
   * @throws IllegalStateException when no reference is held (the count is left unchanged)
   */
  boolean release();
}
