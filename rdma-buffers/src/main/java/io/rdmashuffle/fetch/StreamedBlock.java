/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A block larger than a segment, READ in segments and streamed: handed to the consumer when its
 * first segment arrives, settled ({@link FetchContext#settled}) when its last one has; its stream
 * waits for later ones (naming the one it needs, so it is admitted even when the task's other
 * blocks fill its bounds), gives each segment's buffer back as soon as it is consumed, and checks
 * the checksum when the last byte is consumed (or, when the consumer closes it early, after reading
 * the rest). Reads after a release fail with an {@code IOException}.
 */
final class StreamedBlock extends Block {
  private final FetchContext ctx;
  private final PartitionTable planned;
  private final long start;
  private final SegmentRequest[] requests;

  /** Arrived segments not yet consumed; whoever takes one out releases it. */
  private final AtomicReferenceArray<FetchedSegment> segments;

  private final BlockChecksum checksum;
  private int current;
  private boolean delivered;

  /** Segments whose READ ended with their bytes (each once); at all of them the block settled. */
  private int arrived;

  private volatile boolean released;

  StreamedBlock(
      FetchContext ctx,
      BlockSource source,
      PartitionTable planned,
      int partition,
      long start,
      long length,
      BlockChecksum checksum) {
    super(source, partition, length, true);
    this.ctx = ctx;
    this.planned = planned;
    this.start = start;
    int segmentSize = ctx.options.segmentSize();
    int n = (int) ((length + segmentSize - 1) / segmentSize);
    this.requests = new SegmentRequest[n];
    this.segments = new AtomicReferenceArray<>(n);
    this.checksum = checksum;
  }

  /** Issues the READs of every segment. */
  void submit(PeerAddress responder, RegisteredFileDescriptor data) {
    for (int i = 0; i < requests.length; i++) {
      issue(i, responder, data);
    }
  }

  private void issue(int i, PeerAddress responder, RegisteredFileDescriptor data) {
    int segmentSize = ctx.options.segmentSize();
    long off = start + (long) i * segmentSize;
    int n = (int) Math.min(segmentSize, start + size() - off);
    requests[i] = new SegmentRequest(responder, ctx.application, data, off, n, new Segment(i));
    ctx.segments.add(requests[i]);
  }

  /** The pending READ of segment {@code index}. */
  private final class Segment implements PendingRead {
    private final int index;

    Segment(int index) {
      this.index = index;
    }

    @Override
    public BlockSource source() {
      return StreamedBlock.this.source();
    }

    @Override
    public int partition() {
      return StreamedBlock.this.partition();
    }

    @Override
    public void arrived(FetchedSegment segment) {
      if (++arrived == requests.length) {
        ctx.settled(StreamedBlock.this); // every byte is here: nothing more from the owner
      }
      segments.set(index, segment);
      if (released) {
        // a release on another thread may have run meanwhile: exactly one of us gives it back
        FetchedSegment mine = segments.getAndSet(index, null);
        if (mine != null) {
          mine.release();
        }
        return;
      }
      if (!delivered) {
        delivered = true;
        ctx.ready.add(StreamedBlock.this);
      }
    }

    @Override
    public void reissue(PeerAddress responder, RegisteredFileDescriptor data) {
      issue(index, responder, data);
    }

    @Override
    public boolean sameLayout(PartitionTable table) {
      return planned.sameBlock(table, partition());
    }
  }

  /** The segment being consumed, waiting for it; null at the end of the block. */
  private FetchedSegment segment() throws IOException {
    while (current < segments.length()) {
      if (released) {
        throw new IOException("block " + partition() + " of " + source() + " was released");
      }
      FetchedSegment s = segments.get(current);
      if (s == null) {
        int index = current;
        ctx.pump.pump(requests[index], () -> released || segments.get(index) != null);
        continue;
      }
      if (s.data().hasRemaining()) {
        return s;
      }
      if (segments.compareAndSet(current, s, null)) {
        s.release();
      }
      current++;
      if (current == segments.length()) {
        checksum.verify(this, ctx.counters);
      }
    }
    return null;
  }

  @Override
  public InputStream stream() {
    return new InputStream() {
      private final byte[] one = new byte[1];
      private boolean closed;

      @Override
      public int read() throws IOException {
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] dst, int off, int len) throws IOException {
        if (closed) {
          throw new IOException("stream closed");
        }
        if (len == 0) {
          return 0;
        }
        FetchedSegment s = segment();
        if (s == null) {
          return -1;
        }
        if (!s.tryRetain()) {
          throw new IOException("block " + partition() + " of " + source() + " was released");
        }
        try {
          ByteBuffer b = s.data();
          int n = Math.min(len, b.remaining());
          b.get(dst, off, n);
          checksum.update(dst, off, n);
          return n;
        } finally {
          s.release();
        }
      }

      @Override
      public void close() throws IOException {
        if (closed) {
          return;
        }
        closed = true;
        try {
          if (!released && checksum.active()) {
            // the consumer may stop before the last byte: the checksum still covers the block
            FetchedSegment s;
            while ((s = segment()) != null) {
              checksum.update(s.data());
              s.data().position(s.data().limit());
            }
          }
        } catch (InterruptedIOException e) {
          Thread.currentThread().interrupt();
          throw e;
        } finally {
          release();
        }
      }
    };
  }

  @Override
  public void release() {
    if (released) {
      return;
    }
    released = true;
    for (int i = 0; i < segments.length(); i++) {
      FetchedSegment s = segments.getAndSet(i, null);
      if (s != null) {
        s.release();
      }
    }
  }

  @Override
  boolean isReleased() {
    return released;
  }
}
