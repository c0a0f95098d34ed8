/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A block READ whole into (part of) a pooled registered buffer. It holds a reference to the
 * buffer's segment until released; every read of its stream takes another for the time of the copy,
 * so a stream read by another thread after the block was released fails with an {@code IOException}
 * instead of reading a buffer already lent again. Its checksum is checked before the consumer sees
 * a byte.
 */
final class MemoryBlock extends Block {
  private final FetchedSegment segment;
  private final ByteBuffer bytes;
  private final BlockChecksum checksum;
  private final ReadCounters counters;
  private final AtomicBoolean released = new AtomicBoolean();

  /**
   * @param segment the READ buffer holding the block (this block takes its own reference), or null
   *     for an empty block
   */
  MemoryBlock(
      BlockSource source,
      int partition,
      FetchedSegment segment,
      int offset,
      int length,
      BlockChecksum checksum,
      ReadCounters counters) {
    super(source, partition, length, true);
    this.segment = segment == null ? null : segment.retain();
    this.bytes =
        segment == null
            ? ByteBuffer.allocate(0)
            : segment.data().slice(offset, length).asReadOnlyBuffer();
    this.checksum = checksum;
    this.counters = counters;
  }

  @Override
  void verifyBeforeHandOver() throws BlockFetchException {
    if (checksum.active() && size() > 0) {
      checksum.update(bytes);
      try {
        checksum.verify(this, counters);
      } catch (BlockFetchException e) {
        release();
        throw e;
      }
    }
  }

  @Override
  public InputStream stream() {
    return new InputStream() {
      private final ByteBuffer view = bytes.duplicate();
      private final byte[] one = new byte[1];
      private boolean closed;

      /** Runs a copy out of the buffer while holding it; fails once the block was released. */
      private int copy(byte[] dst, int off, int len) throws IOException {
        if (closed || released.get()) {
          throw new IOException("block " + partition() + " of " + source() + " was released");
        }
        if (!view.hasRemaining()) {
          return -1;
        }
        if (segment != null && !segment.tryRetain()) {
          throw new IOException("block " + partition() + " of " + source() + " was released");
        }
        try {
          int n = Math.min(len, view.remaining());
          view.get(dst, off, n);
          return n;
        } finally {
          if (segment != null) {
            segment.release();
          }
        }
      }

      @Override
      public int read() throws IOException {
        return copy(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] dst, int off, int len) throws IOException {
        return len == 0 ? 0 : copy(dst, off, len);
      }

      @Override
      public long skip(long n) throws IOException {
        if (closed || released.get()) {
          throw new IOException("block " + partition() + " of " + source() + " was released");
        }
        int k = (int) Math.max(0, Math.min(n, view.remaining()));
        view.position(view.position() + k);
        return k;
      }

      @Override
      public int available() {
        return closed || released.get() ? 0 : view.remaining();
      }

      @Override
      public void close() {
        closed = true;
        release();
      }
    };
  }

  @Override
  public void release() {
    if (released.compareAndSet(false, true) && segment != null) {
      segment.release();
    }
  }

  @Override
  boolean isReleased() {
    return released.get();
  }
}
