/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.nio.ByteBuffer;

/**
 * The meta file a Spark map output gets beside its data file when it is committed ({@code
 * shuffle_1_2_0.data.rdma-meta}): where each partition ends in the data file and the checksum
 * computed (or taken from Spark) at commit, so that whoever serves the output later (the executor
 * after an eviction, the NodeManager service after the executor is gone) hands readers the
 * checksums of the bytes as committed. Read and written on the serving host only; never READ
 * remotely. Big-endian:
 *
 * <pre>
 *  0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  | magic "RDMF"  |  version = 2  |  shuffle id   | partitions n  |
 *  +---------------+---------------+---------------+---------------+
 *  |            map id             | checksum alg  |                   (16 .. 28)
 *  +-------------------------------+---------------+
 *  entry p (p = 0 .. n-1) at 28 + 12 p:
 *  +-------------------------------+---------------+
 *  |  end of partition p in data   |  checksum(p)  |
 *  +-------------------------------+---------------+
 * </pre>
 *
 * Partition p spans {@code [end(p-1), end(p))} ({@code end(-1) = 0}).
 */
public final class MetaFileLayout {
  public static final int MAGIC = 0x52444d46; // "RDMF"
  public static final int VERSION = 2;
  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
  public static final int SHUFFLE_ID_OFFSET = VERSION_OFFSET + Integer.BYTES;
  public static final int PARTITIONS_OFFSET = SHUFFLE_ID_OFFSET + Integer.BYTES;
  public static final int MAP_ID_OFFSET = PARTITIONS_OFFSET + Integer.BYTES;
  public static final int CHECKSUM_ALGORITHM_OFFSET = MAP_ID_OFFSET + Long.BYTES;
  public static final int HEADER_BYTES = CHECKSUM_ALGORITHM_OFFSET + Integer.BYTES;
  public static final int ENTRY_END_OFFSET = 0;
  public static final int ENTRY_CHECKSUM_OFFSET = ENTRY_END_OFFSET + Long.BYTES;
  public static final int ENTRY_BYTES = ENTRY_CHECKSUM_OFFSET + Integer.BYTES;

  /** More partitions than this is not a file we wrote (Spark's own limit is 2^24 partitions). */
  public static final int MAX_PARTITIONS = 1 << 24;

  private MetaFileLayout() {}

  public static int fileLength(int partitions) {
    return HEADER_BYTES + partitions * ENTRY_BYTES;
  }

  /** The whole meta file of a committed map output, contiguous partitions of {@code lengths}. */
  public static ByteBuffer encode(
      int shuffleId, long mapId, long[] lengths, ChecksumAlgorithm algorithm, int[] checksums) {
    int n = lengths.length;
    algorithm.checkChecksums(checksums, n);
    ByteBuffer b = ByteBuffer.allocate(fileLength(n));
    b.putInt(MAGIC_OFFSET, MAGIC);
    b.putInt(VERSION_OFFSET, VERSION);
    b.putInt(SHUFFLE_ID_OFFSET, shuffleId);
    b.putInt(PARTITIONS_OFFSET, n);
    b.putLong(MAP_ID_OFFSET, mapId);
    b.putInt(CHECKSUM_ALGORITHM_OFFSET, algorithm.id());
    long end = 0;
    for (int p = 0; p < n; p++) {
      if (lengths[p] < 0) {
        throw new IllegalArgumentException("length of partition " + p + "=" + lengths[p]);
      }
      end += lengths[p];
      int at = HEADER_BYTES + p * ENTRY_BYTES;
      b.putLong(at + ENTRY_END_OFFSET, end);
      b.putInt(at + ENTRY_CHECKSUM_OFFSET, checksums == null ? 0 : checksums[p]);
    }
    return b;
  }

  /**
   * Decodes a meta file and checks it against the map output it should describe.
   *
   * @throws IllegalArgumentException naming the bad field and value
   */
  public static PartitionTable decode(ByteBuffer file, int shuffleId, long mapId, long dataLength) {
    if (file.remaining() < HEADER_BYTES) {
      throw new IllegalArgumentException(
          "meta file length=" + file.remaining() + ": shorter than its header");
    }
    int base = file.position();
    check("magic", file.getInt(base + MAGIC_OFFSET), MAGIC);
    check("version", file.getInt(base + VERSION_OFFSET), VERSION);
    check("shuffleId", file.getInt(base + SHUFFLE_ID_OFFSET), shuffleId);
    long map = file.getLong(base + MAP_ID_OFFSET);
    if (map != mapId) {
      throw new IllegalArgumentException("meta file mapId=" + map + ": expected " + mapId);
    }
    int n = file.getInt(base + PARTITIONS_OFFSET);
    if (n < 0 || n > MAX_PARTITIONS) {
      throw new IllegalArgumentException("meta file partitions=" + n + ": out of range");
    }
    if (file.remaining() != fileLength(n)) {
      throw new IllegalArgumentException(
          "meta file length=" + file.remaining() + ": " + n + " partitions need " + fileLength(n));
    }
    ChecksumAlgorithm algorithm =
        ChecksumAlgorithm.fromId(file.getInt(base + CHECKSUM_ALGORITHM_OFFSET));
    long[] ends = new long[n];
    int[] sums = algorithm == ChecksumAlgorithm.NONE ? null : new int[n];
    for (int p = 0; p < n; p++) {
      int at = base + HEADER_BYTES + p * ENTRY_BYTES;
      ends[p] = file.getLong(at + ENTRY_END_OFFSET);
      if (ends[p] > dataLength) {
        throw new IllegalArgumentException(
            "meta file partition "
                + p
                + " end="
                + ends[p]
                + ": beyond the data file of "
                + dataLength
                + " bytes");
      }
      if (sums != null) {
        sums[p] = file.getInt(at + ENTRY_CHECKSUM_OFFSET);
      }
    }
    return PartitionTable.ofEnds(ends, algorithm, sums);
  }

  private static void check(String name, int value, int expected) {
    if (value != expected) {
      throw new IllegalArgumentException(
          "meta file " + name + "=" + value + ": expected " + expected);
    }
  }
}
