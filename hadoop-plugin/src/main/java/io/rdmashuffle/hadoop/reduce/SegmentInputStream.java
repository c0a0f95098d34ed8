/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.fetch.FetchedSegment;
import io.rdmashuffle.fetch.SegmentFetcher;
import io.rdmashuffle.fetch.SegmentLimits;
import io.rdmashuffle.fetch.SegmentRequest;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.util.Progressable;

/**
 * One map output segment, READ in chunks and read back as a stream in file order: what Hadoop's
 * {@code MapOutput.shuffle} consumes (it checks the IFile checksum and decompresses). The chunks'
 * READs are posted by a {@link SegmentFetcher} of this stream's own, which READs ahead while the
 * merge consumes earlier chunks. The stream keeps no accounting of its own: the fetcher counts
 * every chunk from its admission until the stream releases it, chunks that arrived ahead of their
 * turn included, so the registered memory one stream holds never exceeds its byte bound plus the
 * one chunk it waits for. A chunk that can't be READ (after the fetcher's one retry on a fresh
 * connection) fails the stream with a {@link ReadFailure}. Single thread; {@link #close()} returns
 * every buffer.
 */
final class SegmentInputStream extends InputStream {
  private static final long WAIT_MILLIS = 1000;

  private final SegmentFetcher fetcher;
  private final int chunks;
  private final SegmentRequest[] requests;
  private final Progressable progress;
  private final Map<Integer, FetchedSegment> early = new HashMap<>();
  private FetchedSegment current;
  private ByteBuffer data;
  private int next;
  private ReadFailure failure;
  private boolean closed;

  /**
   * The READs of a chunk failed: a transport failure or the reader's own shortage, not bad data.
   */
  static final class ReadFailure extends IOException {
    private static final long serialVersionUID = 1L;
    private final boolean ownSide;

    ReadFailure(String message, SegmentFetcher.Failed failed) {
      super(message, failed.cause());
      this.ownSide = failed.shortage() || failed.ownSide();
    }

    /** The transport's (or buffer pool's) failure. */
    IOException reason() {
      return (IOException) getCause();
    }

    /**
     * Whether this task's own side failed: it ran short of READ buffers, or its process's side of
     * the transport failed (a connection it could not set up, a READ its own device refused). Not
     * the node's nor the map's fault.
     */
    boolean ownSide() {
      return ownSide;
    }
  }

  SegmentInputStream(
      ConnectionPool connections,
      BufferPool buffers,
      PeerAddress peer,
      String application,
      RegisteredFileDescriptor file,
      long start,
      long length,
      int chunkSize,
      long maxBytesInFlight,
      long allocationWaitMillis,
      Progressable progress) {
    this.progress = progress;
    this.chunks = (int) ((length + chunkSize - 1) / chunkSize);
    int maxRequests = (int) Math.max(1, Math.min(256, maxBytesInFlight / chunkSize));
    // one retry on a fresh connection, at once: a failed chunk is then the map's failure
    this.fetcher =
        new SegmentFetcher(
            connections,
            buffers,
            SegmentLimits.single(
                Math.max(maxBytesInFlight, chunkSize), maxRequests, allocationWaitMillis, 1, 0),
            () -> {});
    this.requests = new SegmentRequest[chunks];
    for (int i = 0; i < chunks; i++) {
      long off = start + (long) i * chunkSize;
      int n = (int) Math.min(chunkSize, start + length - off);
      requests[i] = new SegmentRequest(peer, application, file, off, n, i);
      fetcher.add(requests[i]);
    }
  }

  /** The transport failure that ended this stream, or null. */
  ReadFailure failure() {
    return failure;
  }

  @Override
  public int read() throws IOException {
    if (!fill()) {
      return -1;
    }
    return data.get() & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(len, data.remaining());
    data.get(b, off, n);
    return n;
  }

  @Override
  public int available() {
    return data == null ? 0 : data.remaining();
  }

  /** Makes the next unread byte available; false at the end of the segment. */
  private boolean fill() throws IOException {
    if (closed) {
      throw new IOException("segment stream is closed");
    }
    if (failure != null) {
      throw failure;
    }
    while (data == null || !data.hasRemaining()) {
      if (current != null) {
        current.release();
        current = null;
        data = null;
      }
      if (next == chunks) {
        return false;
      }
      current = await(next++);
      data = current.data();
    }
    return true;
  }

  private FetchedSegment await(int index) throws IOException {
    FetchedSegment f = early.remove(index);
    while (f == null) {
      SegmentFetcher.Result r;
      try {
        r = fetcher.take(WAIT_MILLIS, TimeUnit.MILLISECONDS, requests[index]);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while READing a map output");
      }
      if (r == null) {
        progress.progress();
      } else if (r instanceof SegmentFetcher.Failed failed) {
        failure =
            new ReadFailure(
                "READ of chunk "
                    + failed.request().tag()
                    + " of "
                    + chunks
                    + " failed: "
                    + failed.cause().getMessage(),
                failed);
        throw failure;
      } else {
        FetchedSegment got = (FetchedSegment) r;
        int i = (Integer) got.request().tag();
        if (i == index) {
          f = got;
        } else {
          early.put(i, got);
        }
      }
    }
    return f;
  }

  /** Returns every buffer; READs still in flight return theirs when they end. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (current != null) {
      current.release();
      current = null;
    }
    for (FetchedSegment f : early.values()) {
      f.release();
    }
    early.clear();
    fetcher.close();
  }
}
