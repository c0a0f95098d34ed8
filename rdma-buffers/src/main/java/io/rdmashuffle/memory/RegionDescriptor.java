/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.nio.ByteBuffer;

/**
 * What a remote reader needs to READ one registered region, and its byte layout (big-endian):
 *
 * <pre>
 *  0                               8               12              16
 *  +-------------------------------+---------------+---------------+
 *  |          address              |    length     |     rkey      |
 *  +-------------------------------+---------------+---------------+
 * </pre>
 *
 * The address and rkey are capabilities: never log them at INFO; {@link #toString()} leaves them
 * out.
 */
public record RegionDescriptor(long address, int length, int rkey) {
  public static final int ADDRESS_OFFSET = 0;
  public static final int LENGTH_OFFSET = ADDRESS_OFFSET + Long.BYTES;
  public static final int RKEY_OFFSET = LENGTH_OFFSET + Integer.BYTES;
  public static final int BYTES = RKEY_OFFSET + Integer.BYTES;

  public RegionDescriptor {
    if (length < 0) {
      throw new IllegalArgumentException("region length=" + length + ": must not be negative");
    }
    if (address < 0 || address > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException("region address=" + address + ": out of range");
    }
  }

  /** Writes this descriptor at {@code offset} of {@code dst} (absolute, big-endian). */
  public void writeTo(ByteBuffer dst, int offset) {
    dst.putLong(offset + ADDRESS_OFFSET, address);
    dst.putInt(offset + LENGTH_OFFSET, length);
    dst.putInt(offset + RKEY_OFFSET, rkey);
  }

  /** Reads and validates a descriptor at {@code offset} of {@code src}. */
  public static RegionDescriptor readFrom(ByteBuffer src, int offset) {
    if (offset < 0 || src.limit() - offset < BYTES) {
      throw new IllegalArgumentException(
          "region descriptor at offset="
              + offset
              + " needs "
              + BYTES
              + " bytes, limit="
              + src.limit());
    }
    return new RegionDescriptor(
        src.getLong(offset + ADDRESS_OFFSET),
        src.getInt(offset + LENGTH_OFFSET),
        src.getInt(offset + RKEY_OFFSET));
  }

  @Override
  public String toString() {
    return "RegionDescriptor[length=" + length + "]";
  }
}
