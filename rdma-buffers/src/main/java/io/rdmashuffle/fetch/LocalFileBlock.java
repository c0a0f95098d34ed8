/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A block of a map output on this host (this process's own, or another process's on the same host),
 * read straight from its data file, as Spark's stock shuffle reads host-local blocks: no transport,
 * no registration, and no mapping (a file truncated under a mapping raises SIGBUS; a read of it
 * fails with an {@code IOException}). The blocks of one map output planned together share their
 * file ({@link SharedDataFile}): it is opened when the first of them is read and closed when the
 * last is released, so a task holds one open file per map output it is reading, not one per map
 * output it will read, and opens it once for all of them. The checksum is checked as the bytes are
 * consumed, and at the latest when the stream is closed (the rest is read for it).
 */
final class LocalFileBlock extends Block {
  private static final int BUFFER = 64 * 1024;

  private final SharedDataFile file;
  private final long start;
  private final BlockChecksum checksum;
  private final ReadCounters counters;
  private final AtomicBoolean released = new AtomicBoolean();

  /** A block read from {@code file}, which it releases once when it is released. */
  LocalFileBlock(
      BlockSource source,
      int partition,
      SharedDataFile file,
      long start,
      long length,
      BlockChecksum checksum,
      ReadCounters counters) {
    super(source, partition, length, false);
    this.file = file;
    this.start = start;
    this.checksum = checksum;
    this.counters = counters;
  }

  /** The data file the block is read from. */
  Path file() {
    return file.path();
  }

  /** Where the block starts in its file. */
  long start() {
    return start;
  }

  private FileChannel channel() throws IOException {
    if (released.get()) {
      throw releasedException();
    }
    return file.channel();
  }

  /**
   * What a read after the release gets (the task ended while a thread of its own still read): a
   * plain {@code IOException}, counted nowhere, blaming no map output.
   */
  private IOException releasedException() {
    return new IOException("block " + partition() + " of " + source() + " was released");
  }

  @Override
  public InputStream stream() {
    return new Stream();
  }

  @Override
  public void release() {
    if (released.compareAndSet(false, true)) {
      // a read in progress on another thread ends in its own buffer; its next one fails
      file.release();
    }
  }

  private final class Stream extends InputStream {
    /** No larger than the block: most blocks of a wide shuffle are a few hundred bytes. */
    private final ByteBuffer buf = ByteBuffer.allocate((int) Math.min(BUFFER, size())).limit(0);

    private long read;
    private boolean verified;
    private boolean closed;

    /** Makes at least one byte available; false at the end of the block. */
    private boolean fill() throws IOException {
      if (closed) {
        throw new IOException("stream closed");
      }
      if (released.get()) {
        // even bytes already buffered here: after a release the stream fails, as every block's
        throw releasedException();
      }
      if (buf.hasRemaining()) {
        return true;
      }
      long left = size() - read;
      if (left == 0) {
        if (!verified) {
          verified = true;
          checksum.verify(LocalFileBlock.this, counters);
        }
        return false;
      }
      buf.clear().limit((int) Math.min(buf.capacity(), left));
      int n;
      try {
        n = channel().read(buf, start + read);
      } catch (IOException e) {
        if (released.get()) {
          throw releasedException(); // closed under this read: nothing wrong with the file
        }
        throw counters.failure(
            BlockFetchException.Kind.LOCAL,
            source(),
            partition(),
            "reading " + file + " failed: " + e,
            e);
      }
      if (n <= 0) {
        EOFException eof = new EOFException(file + " ends before byte " + (start + size()));
        throw counters.failure(
            BlockFetchException.Kind.LOCAL,
            source(),
            partition(),
            "map output file is shorter than its index says (truncated?)",
            eof);
      }
      buf.flip();
      checksum.update(buf);
      read += n;
      return true;
    }

    @Override
    public int read() throws IOException {
      return fill() ? buf.get() & 0xff : -1;
    }

    @Override
    public int read(byte[] dst, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (!fill()) {
        return -1;
      }
      int n = Math.min(len, buf.remaining());
      buf.get(dst, off, n);
      return n;
    }

    @Override
    public int available() {
      return closed ? 0 : buf.remaining();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      try {
        if (checksum.active() && !verified) {
          // the consumer may stop before the last byte (a deserializer that found its end
          // marker): the checksum still covers the whole block
          buf.limit(0);
          while (fill()) {
            buf.position(buf.limit());
          }
        }
      } finally {
        closed = true;
        release();
      }
    }
  }

  @Override
  boolean isReleased() {
    return released.get();
  }
}
