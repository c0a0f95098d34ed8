package io.rdmashuffle.memory;

/**
 * The check every reader applies to a partition's byte range {@code [start, end)} in a map
 * output's data file before READing it, wherever the range came from: the Spark plugin derives
 * it from the offsets entries it READs from the serving side's registered meta region (each
 * entry holds the partition's end; the previous entry's end is its start: see the plugin's {@code
 * MapOutputMetaLayout}); nothing reads Spark's index file remotely. A range a peer sent is only
 * used once this check passed, so a corrupt or hostile entry can never send a READ outside the
 * data file.
 */
public final class OffsetsEntryLayout {
  private OffsetsEntryLayout() {}

  /**
   * Checks a partition's range against the data file it lies in.
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
