/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;

/**
 * One one-sided READ: copy {@code length} bytes at {@code (remoteAddress, rkey)} of the peer into
 * {@code target} at {@code targetOffset}. Mutable and reusable: the caller owns it, fills it with
 * {@link #set}, posts it, and may reuse it after its listener was called. Must not be changed while
 * in flight.
 */
public final class ReadOp {
  private long remoteAddress;
  private int rkey;
  private int length;
  private RegisteredRegion target;
  private long targetOffset;
  private ReadListener listener;
  private Object attachment;

  /**
   * Fills this READ.
   *
   * @param target a registered region with {@code LOCAL_WRITE} access to write into
   * @param targetOffset where in {@code target} the bytes go
   */
  public ReadOp set(
      long remoteAddress,
      int rkey,
      int length,
      RegisteredRegion target,
      long targetOffset,
      ReadListener listener) {
    if (length <= 0) {
      throw new IllegalArgumentException("READ length=" + length + ": must be positive");
    }
    if (targetOffset < 0 || targetOffset > target.length() - (long) length) {
      throw new IllegalArgumentException(
          "READ of length="
              + length
              + " at targetOffset="
              + targetOffset
              + ": does not fit the target region of length="
              + target.length());
    }
    this.remoteAddress = remoteAddress;
    this.rkey = rkey;
    this.length = length;
    this.target = target;
    this.targetOffset = targetOffset;
    this.listener = listener;
    return this;
  }

  /** Fills this READ to land in {@code buffer} at {@code offset}. */
  public ReadOp set(
      long remoteAddress,
      int rkey,
      int length,
      PooledBuffer buffer,
      int offset,
      ReadListener listener) {
    if (offset < 0 || offset > buffer.capacity() - (long) length) {
      throw new IllegalArgumentException(
          "READ of length="
              + length
              + " at offset="
              + offset
              + ": does not fit the buffer of capacity="
              + buffer.capacity());
    }
    return set(
        remoteAddress,
        rkey,
        length,
        buffer.region(),
        buffer.regionOffset() + (long) offset,
        listener);
  }

  /** Anything the caller wants to find again in its listener (e.g. the block being read). */
  public ReadOp attach(Object value) {
    this.attachment = value;
    return this;
  }

  public long remoteAddress() {
    return remoteAddress;
  }

  public int rkey() {
    return rkey;
  }

  public int length() {
    return length;
  }

  public RegisteredRegion target() {
    return target;
  }

  public long targetOffset() {
    return targetOffset;
  }

  public ReadListener listener() {
    return listener;
  }

  public Object attachment() {
    return attachment;
  }

  /** Leaves out the rkey and remote address: they are capabilities. */
  @Override
  public String toString() {
    return "READ of " + length + " bytes" + (attachment == null ? "" : " for " + attachment);
  }
}
