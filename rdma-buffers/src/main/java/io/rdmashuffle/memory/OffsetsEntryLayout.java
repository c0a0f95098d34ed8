package io.rdmashuffle.memory;

import java.nio.ByteBuffer;

/**
 * One partition's offsets entry as a reducer READs it from a map output's index: two
 * consecutive big-endian longs, the partition's start and end in the data file. Spark's index
 * file is {@code numPartitions + 1} such longs, so partition {@code p}'s entry is the 16 bytes at
 * {@code 8 * p}:
 *
 * <pre>
 *  0                               8                               16
 *  +-------------------------------+-------------------------------+
 *  |   start offset of partition   |    end offset of partition    |
 *  +-------------------------------+-------------------------------+
 * </pre>
 */
public final class OffsetsEntryLayout {
  public static final int START_OFFSET = 0;
  public static final int END_OFFSET = 8;
  public static final int BYTES = 16;
  /** Distance between consecutive partitions' entries in the index. */
  public static final int STRIDE = 8;

  private OffsetsEntryLayout() {}

  /** Where partition {@code partition}'s entry starts in the index. */
  public static long entryOffset(int partition) {
    if (partition < 0) {
      throw new IllegalArgumentException("partition=" + partition + ": must not be negative");
    }
    return (long) partition * STRIDE;
  }

  public static long start(ByteBuffer entry, int at) {
    return entry.getLong(at + START_OFFSET);
  }

  public static long end(ByteBuffer entry, int at) {
    return entry.getLong(at + END_OFFSET);
  }

  /**
   * Checks an entry against the data file it describes.
   *
   * @throws IllegalArgumentException naming the bad field and value
   */
  public static void validate(long start, long end, long dataLength) {
    if (start < 0 || start > dataLength) {
      throw new IllegalArgumentException(
          "start=" + start + ": outside the data file, length=" + dataLength);
    }
    if (end < start || end > dataLength) {
      throw new IllegalArgumentException(
          "end=" + end + ": must be in start=" + start + " .. length=" + dataLength);
    }
  }
}
