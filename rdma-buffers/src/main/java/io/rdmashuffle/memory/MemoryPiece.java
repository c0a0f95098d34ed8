/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * A contiguous piece of memory that a transport can register: a direct buffer, or one mapped piece
 * of a file (read-only). Below 2 GiB by construction ({@link ByteBuffer} capacity is an int). The
 * piece does not own its memory; whoever created it frees it after deregistration.
 */
public final class MemoryPiece {
  private final ByteBuffer buffer;
  private final FileChannel file;
  private final long fileOffset;

  private MemoryPiece(ByteBuffer buffer, FileChannel file, long fileOffset) {
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("only direct or mapped memory can be registered");
    }
    this.buffer = buffer;
    this.file = file;
    this.fileOffset = fileOffset;
  }

  /** Direct memory; the buffer's whole capacity is registered. */
  public static MemoryPiece of(ByteBuffer direct) {
    return new MemoryPiece(direct, null, 0);
  }

  /**
   * A mapped piece of {@code file} starting at {@code fileOffset} (a {@link FileMapper}'s read-only
   * mapping): {@link #buffer()} hands out a read-only view of it.
   */
  public static MemoryPiece ofMappedFile(ByteBuffer mapped, FileChannel file, long offset) {
    return new MemoryPiece(
        mapped.isReadOnly() ? mapped : mapped.asReadOnlyBuffer(),
        Objects.requireNonNull(file),
        offset);
  }

  /**
   * The memory, position 0 and limit its capacity (read-only for files); callers must not change
   * its state.
   */
  public ByteBuffer buffer() {
    return buffer;
  }

  public int length() {
    return buffer.capacity();
  }

  /** The file this piece maps, or null for anonymous memory. */
  public FileChannel file() {
    return file;
  }

  /** Where the piece starts in {@link #file()}. */
  public long fileOffset() {
    return fileOffset;
  }

  public boolean isFile() {
    return file != null;
  }
}
