/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.CountedResource;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RefCount;
import java.nio.ByteBuffer;

/**
 * A segment a {@link SegmentFetcher} fetched: its bytes, counted: the consumer holds the first
 * reference; a reader that must keep the bytes valid while it copies them takes another ({@link
 * #tryRetain()}), which fails once the segment was released. The buffer goes back to the pool with
 * the last reference.
 */
public final class FetchedSegment extends CountedResource<FetchedSegment>
    implements SegmentFetcher.Result {
  private final SegmentRequest request;

  /** Told the bytes and requests given back when the last reference goes. */
  private final Runnable onRelease;

  private final PooledBuffer buffer;
  private final ByteBuffer data;

  FetchedSegment(SegmentRequest request, PooledBuffer buffer, Runnable onRelease) {
    super(RefCount.open("fetched segment"));
    this.request = request;
    this.buffer = buffer;
    this.onRelease = onRelease;
    this.data =
        buffer == null
            ? ByteBuffer.allocate(0)
            : buffer.buffer().duplicate().limit(request.length()).position(0).slice();
  }

  public SegmentRequest request() {
    return request;
  }

  /** The bytes, position 0, limit the segment's length. Valid while a reference is held. */
  public ByteBuffer data() {
    return data;
  }

  /** The last reference given back: the requests are told, the buffer goes back to its pool. */
  @Override
  protected void lastReleased() {
    if (buffer != null) {
      onRelease.run();
      buffer.release();
    }
  }
}
