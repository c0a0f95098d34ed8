/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.PartitionTable;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * Byte layout (big-endian) of a MapReduce map output's {@code file.out.index}, as Hadoop's {@code
 * SpillRecord} writes it, and its reading into the serving core's {@link PartitionTable}:
 *
 * <pre>
 *  entry p (p = 0 .. n-1) at 24 p:
 *  +-------------------------------+-------------------------------+-------------------------------+
 *  |   start offset in file.out    |  raw length (decompressed)    |  part length (bytes on disk)  |
 *  +-------------------------------+-------------------------------+-------------------------------+
 *  then at 24 n: the CRC32 of bytes [0, 24 n), as a long.
 * </pre>
 *
 * Partition p of the map output is the IFile segment {@code [start, start + part length)} of {@code
 * file.out}, with its own IFile checksum; the table carries no checksum of ours.
 */
public final class SpillIndexLayout {
  public static final int ENTRY_START_OFFSET = 0;
  public static final int ENTRY_RAW_LENGTH_OFFSET = ENTRY_START_OFFSET + Long.BYTES;
  public static final int ENTRY_PART_LENGTH_OFFSET = ENTRY_RAW_LENGTH_OFFSET + Long.BYTES;

  /** MapTask.MAP_OUTPUT_INDEX_RECORD_LENGTH. */
  public static final int ENTRY_BYTES = ENTRY_PART_LENGTH_OFFSET + Long.BYTES;

  public static final int CHECKSUM_BYTES = Long.BYTES;

  /** More partitions than this is not an index a map wrote (Hadoop's limit is an int). */
  public static final int MAX_PARTITIONS = 1 << 24;

  private SpillIndexLayout() {}

  public static long fileLength(int partitions) {
    return (long) partitions * ENTRY_BYTES + CHECKSUM_BYTES;
  }

  /** The whole index file of partitions {@code starts, rawLengths, partLengths} (tests, tools). */
  public static ByteBuffer encode(long[] starts, long[] rawLengths, long[] partLengths) {
    int n = starts.length;
    ByteBuffer b = ByteBuffer.allocate((int) fileLength(n));
    for (int p = 0; p < n; p++) {
      b.putLong(p * ENTRY_BYTES + ENTRY_START_OFFSET, starts[p]);
      b.putLong(p * ENTRY_BYTES + ENTRY_RAW_LENGTH_OFFSET, rawLengths[p]);
      b.putLong(p * ENTRY_BYTES + ENTRY_PART_LENGTH_OFFSET, partLengths[p]);
    }
    CRC32 crc = new CRC32();
    crc.update(b.array(), 0, n * ENTRY_BYTES);
    b.putLong(n * ENTRY_BYTES, crc.getValue());
    return b;
  }

  /**
   * Decodes a whole index file, checking its length and CRC32.
   *
   * @throws IllegalArgumentException naming what is wrong (the output is damaged)
   */
  public static PartitionTable decode(ByteBuffer file) {
    int base = file.position();
    int length = file.remaining();
    if (length < CHECKSUM_BYTES || (length - CHECKSUM_BYTES) % ENTRY_BYTES != 0) {
      throw new IllegalArgumentException(
          "index file length="
              + length
              + ": not "
              + ENTRY_BYTES
              + " bytes per partition and a "
              + CHECKSUM_BYTES
              + "-byte checksum");
    }
    int n = (length - CHECKSUM_BYTES) / ENTRY_BYTES;
    if (n > MAX_PARTITIONS) {
      throw new IllegalArgumentException("index file partitions=" + n + ": out of range");
    }
    CRC32 crc = new CRC32();
    crc.update(file.duplicate().limit(base + n * ENTRY_BYTES));
    long stored = file.getLong(base + n * ENTRY_BYTES);
    if (crc.getValue() != stored) {
      throw new IllegalArgumentException(
          "index file checksum=0x"
              + Long.toHexString(stored)
              + ": its entries' CRC32 is 0x"
              + Long.toHexString(crc.getValue()));
    }
    long[] starts = new long[n];
    long[] raws = new long[n];
    long[] parts = new long[n];
    for (int p = 0; p < n; p++) {
      int at = base + p * ENTRY_BYTES;
      starts[p] = file.getLong(at + ENTRY_START_OFFSET);
      raws[p] = file.getLong(at + ENTRY_RAW_LENGTH_OFFSET);
      parts[p] = file.getLong(at + ENTRY_PART_LENGTH_OFFSET);
    }
    return new PartitionTable(0, starts, parts, raws, ChecksumAlgorithm.NONE, null);
  }
}
