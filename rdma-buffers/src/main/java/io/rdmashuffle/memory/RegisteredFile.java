/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A file opened for reading only, mapped read-only (as its registrar's {@link FileMapper} says) and
 * registered for remote READ only in pieces of at most {@code pieceSize} bytes (each registration
 * is limited to 2 GiB, so files of any size work). Owned by whoever opened it; {@link #close()}
 * withdraws every piece at once and unmaps the file (and closes its descriptor) after the last
 * in-flight READ of it finishes.
 *
 * <p>Counted as a withdrawable {@link RefCount} (see {@link RefCounted}): the owner's reference,
 * one per registered piece until the piece is deregistered, and one per holder that {@link
 * #tryRetain retained} the file to keep its mapping readable. The last release unmaps.
 */
public final class RegisteredFile extends CountedResource<RegisteredFile> implements AutoCloseable {
  private final Path path;
  private final FileChannel channel;
  private final long length;
  private final long pieceSize;
  private final List<RegisteredRegion> pieces;
  private final List<ByteBuffer> mappings;

  private final FileMapper mapper;

  private final LeakDetector.Tracker tracker;

  private RegisteredFile(
      Path path, FileChannel channel, long length, long pieceSize, FileMapper mapper) {
    super(RefCount.withdrawable("registered file"));
    this.mapper = mapper;
    this.path = path;
    this.channel = channel;
    this.length = length;
    this.pieceSize = pieceSize;
    int count = (int) ((length + pieceSize - 1) / pieceSize);
    this.pieces = new ArrayList<>(count);
    this.mappings = new ArrayList<>(count);
    this.tracker =
        LeakDetector.track(
            this,
            LeakDetector.Kind.FILE,
            "registered file " + path.getFileName() + " of " + length + " bytes");
  }

  /**
   * Maps {@code path} and registers it for remote READ by peers of {@code owner}.
   *
   * @param pieceSize at most 2^31 - 1, a multiple of the page size
   */
  public static RegisteredFile open(
      Path path, long pieceSize, MemoryRegistrar registrar, String owner) throws IOException {
    checkPieceSize(pieceSize);
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    return register(path, ch, pieceSize, registrar, owner);
  }

  /**
   * Maps and registers a file its caller already opened (and checked: what is registered is exactly
   * that open file, whatever happens to its path meanwhile). Takes over {@code channel}: it is
   * closed with the registered file, or at once when registration fails. {@code channel} is open
   * for reading only.
   */
  public static RegisteredFile register(
      Path path, FileChannel channel, long pieceSize, MemoryRegistrar registrar, String owner)
      throws IOException {
    RegisteredFile file;
    try {
      checkPieceSize(pieceSize);
      file = new RegisteredFile(path, channel, channel.size(), pieceSize, registrar.fileMapper());
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    try {
      file.mapAndRegister(registrar, owner);
      return file;
    } catch (IOException | RuntimeException e) {
      file.close();
      throw e;
    }
  }

  private static void checkPieceSize(long pieceSize) {
    if (pieceSize <= 0 || pieceSize > Integer.MAX_VALUE || pieceSize % 4096 != 0) {
      throw new IllegalArgumentException(
          "pieceSize=" + pieceSize + ": must be a multiple of 4096 below 2 GiB");
    }
  }

  private void mapAndRegister(MemoryRegistrar registrar, String owner) throws IOException {
    for (long off = 0; off < length; off += pieceSize) {
      int size = (int) Math.min(pieceSize, length - off);
      ByteBuffer mapped = mapper.map(channel, off, size);
      mappings.add(mapped);
      refs().retain();
      try {
        pieces.add(
            registrar.register(
                MemoryPiece.ofMappedFile(mapped, channel, off),
                Access.REMOTE_READ,
                owner,
                this::release));
      } catch (IOException | RuntimeException e) {
        refs().release();
        throw e;
      }
    }
  }

  public Path path() {
    return path;
  }

  /** The file's length when it was registered. */
  public long length() {
    return length;
  }

  /** Whether it is still registered (not closed); READs in flight may outlive that. */
  public boolean isOpen() {
    return refs().isOpen();
  }

  /** The file's length now (shorter than {@link #length()} when it was truncated since). */
  public long currentLength() throws IOException {
    return channel.size();
  }

  public long pieceSize() {
    return pieceSize;
  }

  public List<RegisteredRegion> pieces() {
    return pieces;
  }

  public RegisteredFileDescriptor descriptor() {
    List<RegionDescriptor> d = new ArrayList<>(pieces.size());
    for (RegisteredRegion r : pieces) {
      d.add(r.descriptor());
    }
    return new RegisteredFileDescriptor(length, pieceSize, d);
  }

  /**
   * Copies file bytes {@code [offset, offset + dst.remaining())} into {@code dst} straight from the
   * mapping (a local read, no network).
   *
   * @throws IllegalArgumentException when the range is outside the file
   * @throws IllegalStateException when the file was closed
   */
  public void read(long offset, ByteBuffer dst) {
    int n = dst.remaining();
    if (offset < 0 || offset > length - n) {
      throw new IllegalArgumentException(
          "range offset=" + offset + " length=" + n + ": outside fileLength=" + length);
    }
    long pos = offset;
    while (dst.hasRemaining()) {
      int index = (int) (pos / pieceSize);
      RegisteredRegion piece = pieces.get(index);
      if (!piece.tryRetain()) {
        throw new IllegalStateException("registered file " + path + " is closed");
      }
      try {
        int inPiece = (int) (pos - index * pieceSize);
        int k = Math.min(dst.remaining(), piece.length() - inPiece);
        dst.put(dst.position(), piece.memory().buffer(), inPiece, k);
        dst.position(dst.position() + k);
        pos += k;
      } finally {
        piece.release();
      }
    }
  }

  /** Withdraws all pieces; unmaps when in-flight READs of them are done. Idempotent. */
  @Override
  public void close() {
    closeCount(() -> pieces.forEach(RegisteredRegion::close));
  }

  /** The last reference given back: unmaps the file and closes its descriptor. */
  @Override
  protected void lastReleased() {
    for (ByteBuffer m : mappings) {
      mapper.unmap(m);
    }
    try {
      channel.close();
    } catch (IOException e) {
      // nothing to do: the mapping is gone and the descriptor is released either way
    }
    LeakDetector.untrack(tracker, this);
  }
}
