/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * What a remote reader needs to READ any byte range of a file registered in pieces (see {@link
 * RegisteredFile}), and its byte layout (big-endian):
 *
 * <pre>
 *  0               4               8                              16                             24
 *  +---------------+---------------+------------------------------+------------------------------+
 *  |   version=1   |  piece count  |         file length          |          piece size          |
 *  +---------------+---------------+------------------------------+------------------------------+
 *  | RegionDescriptor of piece 0 (16 bytes) | ... | RegionDescriptor of piece count-1 (16 bytes) |
 *  +----------------------------------------+-----+----------------------------------------------+
 * </pre>
 *
 * Piece i covers file bytes {@code [i * pieceSize, min((i + 1) * pieceSize, fileLength))}.
 */
public final class RegisteredFileDescriptor {
  public static final int VERSION = 1;
  public static final int VERSION_OFFSET = 0;
  public static final int COUNT_OFFSET = VERSION_OFFSET + Integer.BYTES;
  public static final int FILE_LENGTH_OFFSET = COUNT_OFFSET + Integer.BYTES;
  public static final int PIECE_SIZE_OFFSET = FILE_LENGTH_OFFSET + Long.BYTES;
  public static final int HEADER_BYTES = PIECE_SIZE_OFFSET + Long.BYTES;

  /** More pieces than this is not a file we registered (1 GiB pieces: 4 PiB). */
  public static final int MAX_PIECES = 1 << 22;

  private final long fileLength;
  private final long pieceSize;
  private final List<RegionDescriptor> pieces;

  public RegisteredFileDescriptor(long fileLength, long pieceSize, List<RegionDescriptor> pieces) {
    this.fileLength = fileLength;
    this.pieceSize = pieceSize;
    this.pieces = List.copyOf(pieces);
    validate();
  }

  private void validate() {
    if (fileLength < 0) {
      throw new IllegalArgumentException("fileLength=" + fileLength + ": must not be negative");
    }
    if (pieceSize <= 0 || pieceSize > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("pieceSize=" + pieceSize + ": must be in 1 .. 2^31-1");
    }
    long expected = (fileLength + pieceSize - 1) / pieceSize;
    if (pieces.size() != expected) {
      throw new IllegalArgumentException(
          "pieces="
              + pieces.size()
              + ": a file of fileLength="
              + fileLength
              + " in pieces of "
              + pieceSize
              + " has "
              + expected);
    }
    for (int i = 0; i < pieces.size(); i++) {
      long want = Math.min(pieceSize, fileLength - i * pieceSize);
      if (pieces.get(i).length() != want) {
        throw new IllegalArgumentException(
            "piece " + i + " length=" + pieces.get(i).length() + ": expected " + want);
      }
    }
  }

  public long fileLength() {
    return fileLength;
  }

  public long pieceSize() {
    return pieceSize;
  }

  public List<RegionDescriptor> pieces() {
    return pieces;
  }

  public int encodedLength() {
    return HEADER_BYTES + pieces.size() * RegionDescriptor.BYTES;
  }

  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(encodedLength());
    b.putInt(VERSION_OFFSET, VERSION);
    b.putInt(COUNT_OFFSET, pieces.size());
    b.putLong(FILE_LENGTH_OFFSET, fileLength);
    b.putLong(PIECE_SIZE_OFFSET, pieceSize);
    for (int i = 0; i < pieces.size(); i++) {
      pieces.get(i).writeTo(b, HEADER_BYTES + i * RegionDescriptor.BYTES);
    }
    return b.array();
  }

  /** Decodes and validates; every problem names the field and its value. */
  public static RegisteredFileDescriptor decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (bytes.length < HEADER_BYTES) {
      throw new IllegalArgumentException(
          "registered file descriptor length=" + bytes.length + ": shorter than its header");
    }
    int version = b.getInt(VERSION_OFFSET);
    if (version != VERSION) {
      throw new IllegalArgumentException("version=" + version + ": expected " + VERSION);
    }
    int count = b.getInt(COUNT_OFFSET);
    if (count < 0 || count > MAX_PIECES) {
      throw new IllegalArgumentException("piece count=" + count + ": out of range");
    }
    long want = HEADER_BYTES + (long) count * RegionDescriptor.BYTES;
    if (bytes.length != want) {
      throw new IllegalArgumentException(
          "registered file descriptor length="
              + bytes.length
              + ": "
              + count
              + " pieces need "
              + want);
    }
    RegionDescriptor[] pieces = new RegionDescriptor[count];
    for (int i = 0; i < count; i++) {
      pieces[i] = RegionDescriptor.readFrom(b, HEADER_BYTES + i * RegionDescriptor.BYTES);
    }
    return new RegisteredFileDescriptor(
        b.getLong(FILE_LENGTH_OFFSET), b.getLong(PIECE_SIZE_OFFSET), List.of(pieces));
  }

  /** Receives the piece-local parts of a file range, in file order. */
  @FunctionalInterface
  public interface SegmentConsumer {
    /**
     * @param fileOffset where this part starts in the file
     * @param remoteAddress where it starts in its piece's registered region
     * @param rkey the piece's remote key
     * @param length bytes in this part (always in one piece)
     */
    void accept(long fileOffset, long remoteAddress, int rkey, int length);
  }

  /**
   * Splits the file range {@code [offset, offset + length)} at piece boundaries.
   *
   * @throws IllegalArgumentException when the range is not inside the file
   */
  public void segments(long offset, long length, SegmentConsumer consumer) {
    if (offset < 0 || length < 0 || offset > fileLength - length) {
      throw new IllegalArgumentException(
          "range offset=" + offset + " length=" + length + ": outside fileLength=" + fileLength);
    }
    long pos = offset;
    long end = offset + length;
    while (pos < end) {
      int index = (int) (pos / pieceSize);
      long inPiece = pos - index * pieceSize;
      RegionDescriptor piece = pieces.get(index);
      int n = (int) Math.min(end - pos, piece.length() - inPiece);
      consumer.accept(pos, piece.address() + inPiece, piece.rkey(), n);
      pos += n;
    }
  }

  @Override
  public String toString() {
    return "RegisteredFileDescriptor[fileLength=" + fileLength + ", pieces=" + pieces.size() + "]";
  }
}
