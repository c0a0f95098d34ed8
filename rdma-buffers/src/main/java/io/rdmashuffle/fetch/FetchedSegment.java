package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RefCount;
import io.rdmashuffle.memory.RefCounted;
import java.nio.ByteBuffer;

/**
 * A segment a {@link SegmentFetcher} fetched: its bytes, counted: the consumer holds the first
 * reference; a reader that must keep the bytes valid while it copies them takes another ({@link
 * #tryRetain()}), which fails once the segment was released. The buffer goes back to the pool with
 * the last reference.
 */
public final class FetchedSegment implements SegmentFetcher.Result, RefCounted {
  private final SegmentRequest request;

  /** Told the bytes and requests given back when the last reference goes. */
  private final Runnable onRelease;

  private final PooledBuffer buffer;
  private final ByteBuffer data;
  private final RefCount refs = RefCount.open("fetched segment");

  FetchedSegment(SegmentRequest request, PooledBuffer buffer, Runnable onRelease) {
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

  @Override
  public int refCnt() {
    return refs.get();
  }

  @Override
  public FetchedSegment retain() {
    refs.retain();
    return this;
  }

  @Override
  public boolean tryRetain() {
    return refs.tryRetain();
  }

  @Override
  public boolean release() {
    if (!refs.release()) {
      return false;
    }
    if (buffer != null) {
      onRelease.run();
      buffer.release();
    }
    return true;
  }
}
