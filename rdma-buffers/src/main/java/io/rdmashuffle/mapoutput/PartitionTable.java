/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.util.Arrays;

/**
 * Where each partition of a map output lies in its data file, and what a reader checks it with:
 * start and length per partition, the length once decoded where the engine needs it (MapReduce's
 * IFile raw length; Spark doesn't), and a checksum per partition when one was computed at commit.
 * Built from an engine's index (Spark's index file and our meta file, MapReduce's {@code
 * file.out.index}); a reader receives the slice it asked for in a {@link LocateAnswer}. Immutable.
 *
 * <p>A serving process keeps one per registered output, so its heap is bounded ({@code
 * serve.maxTableBytes}): where each partition ends where the next starts (Spark's and MapReduce's
 * layouts), the lengths follow from the starts and are not kept, 12 bytes a partition with
 * checksums instead of 20.
 */
public final class PartitionTable {
  private final int first;
  private final long[] starts;

  /** Null where the partitions are contiguous: each ends where the next starts. */
  private final long[] lengths;

  /** The end of the last partition, where {@link #lengths} is null. */
  private final long lastEnd;

  private final long[] rawLengths;
  private final ChecksumAlgorithm algorithm;
  private final int[] checksums;

  /**
   * @param first the partition number of entry 0 (a slice of a larger table starts later)
   * @param rawLengths decoded lengths, or null when they equal the lengths
   * @param checksums one per partition, or null when {@code algorithm} is NONE
   * @throws IllegalArgumentException naming the bad field and value
   */
  public PartitionTable(
      int first,
      long[] starts,
      long[] lengths,
      long[] rawLengths,
      ChecksumAlgorithm algorithm,
      int[] checksums) {
    int n = starts.length;
    if (first < 0) {
      throw new IllegalArgumentException("first partition=" + first + ": must not be negative");
    }
    if (lengths.length != n || (rawLengths != null && rawLengths.length != n)) {
      throw new IllegalArgumentException(
          "lengths="
              + lengths.length
              + ", rawLengths="
              + (rawLengths == null ? "none" : rawLengths.length)
              + ": must match starts="
              + n);
    }
    algorithm.checkChecksums(checksums, n);
    for (int i = 0; i < n; i++) {
      if (starts[i] < 0 || lengths[i] < 0 || starts[i] > Long.MAX_VALUE - lengths[i]) {
        throw new IllegalArgumentException(
            "partition "
                + (first + i)
                + " start="
                + starts[i]
                + " length="
                + lengths[i]
                + ": out of range");
      }
      if (rawLengths != null && rawLengths[i] < 0) {
        throw new IllegalArgumentException(
            "partition " + (first + i) + " rawLength=" + rawLengths[i] + ": negative");
      }
    }
    this.first = first;
    this.starts = starts.clone();
    this.lengths = contiguous(starts, lengths) ? null : lengths.clone();
    this.lastEnd = n == 0 ? 0 : starts[n - 1] + lengths[n - 1];
    this.rawLengths = rawLengths == null ? null : rawLengths.clone();
    this.algorithm = algorithm;
    this.checksums = checksums == null ? null : checksums.clone();
  }

  /** A table of contiguous partitions whose ends in the data file are {@code ends}. */
  public static PartitionTable ofEnds(long[] ends, ChecksumAlgorithm algorithm, int[] checksums) {
    long[] starts = new long[ends.length];
    long[] lengths = new long[ends.length];
    long previous = 0;
    for (int p = 0; p < ends.length; p++) {
      if (ends[p] < previous) {
        throw new IllegalArgumentException(
            "partition " + p + " end=" + ends[p] + ": before its start " + previous);
      }
      starts[p] = previous;
      lengths[p] = ends[p] - previous;
      previous = ends[p];
    }
    return new PartitionTable(0, starts, lengths, null, algorithm, checksums);
  }

  private static boolean contiguous(long[] starts, long[] lengths) {
    for (int i = 0; i + 1 < starts.length; i++) {
      if (starts[i] + lengths[i] != starts[i + 1]) {
        return false;
      }
    }
    return true;
  }

  /**
   * The heap a table of {@code partitions} partitions takes (its arrays: starts, lengths unless
   * {@code contiguous}, raw lengths when it has them, checksums), what a serving process bounds by
   * {@code serve.maxTableBytes} for the outputs it keeps registered.
   */
  public static long heapBytes(int partitions, boolean contiguous, boolean rawLengths) {
    long perPartition = 8 + (contiguous ? 0 : 8) + (rawLengths ? 8 : 0) + 4;
    return 64 + 4 * 16 + partitions * perPartition;
  }

  /** The heap this table takes ({@link #heapBytes(int, boolean, boolean)}). */
  public long heapBytes() {
    return heapBytes(size(), lengths == null, hasRawLengths());
  }

  /** The first partition this table describes. */
  public int first() {
    return first;
  }

  /** One past the last partition this table describes. */
  public int end() {
    return first + starts.length;
  }

  public int size() {
    return starts.length;
  }

  public long start(int partition) {
    return starts[index(partition)];
  }

  public long length(int partition) {
    return lengthAt(index(partition));
  }

  /** The partition's length once decoded (its length where the engine does not say). */
  public long rawLength(int partition) {
    int i = index(partition);
    return rawLengths == null ? lengthAt(i) : rawLengths[i];
  }

  private long lengthAt(int i) {
    if (lengths != null) {
      return lengths[i];
    }
    return (i + 1 < starts.length ? starts[i + 1] : lastEnd) - starts[i];
  }

  public boolean hasRawLengths() {
    return rawLengths != null;
  }

  public ChecksumAlgorithm algorithm() {
    return algorithm;
  }

  /** The partition's checksum (meaningless when the algorithm is NONE). */
  public int checksum(int partition) {
    return checksums == null ? 0 : checksums[index(partition)];
  }

  /**
   * Whether {@code other} describes {@code partition} as this table does: its place, length and
   * checksum (a map output re-published under the same id may not).
   */
  public boolean sameBlock(PartitionTable other, int partition) {
    return partition >= other.first()
        && partition < other.end()
        && other.start(partition) == start(partition)
        && other.length(partition) == length(partition)
        && other.algorithm() == algorithm()
        && other.checksum(partition) == checksum(partition);
  }

  /** The bytes every partition spans: one past the last byte of the furthest one. */
  public long extent() {
    long max = 0;
    for (int i = 0; i < starts.length; i++) {
      max = Math.max(max, starts[i] + lengthAt(i));
    }
    return max;
  }

  /**
   * Checks every partition against the data file's length.
   *
   * @throws IllegalArgumentException naming the partition and the value
   */
  public void checkWithin(long fileLength) {
    for (int i = 0; i < starts.length; i++) {
      if (starts[i] + lengthAt(i) > fileLength) {
        throw new IllegalArgumentException(
            "partition "
                + (first + i)
                + " end="
                + (starts[i] + lengthAt(i))
                + ": beyond the data file of "
                + fileLength
                + " bytes");
      }
    }
  }

  /** Partitions {@code [from, to)} of this table. */
  public PartitionTable slice(int from, int to) {
    if (from < first || to > end() || from > to) {
      throw new IllegalArgumentException(
          "from="
              + from
              + ", to="
              + to
              + ": outside the table's"
              + " partitions ["
              + first
              + ", "
              + end()
              + ")");
    }
    int a = from - first;
    int b = to - first;
    long[] sliceLengths = new long[b - a];
    for (int i = a; i < b; i++) {
      sliceLengths[i - a] = lengthAt(i);
    }
    return new PartitionTable(
        from,
        Arrays.copyOfRange(starts, a, b),
        sliceLengths,
        rawLengths == null ? null : Arrays.copyOfRange(rawLengths, a, b),
        algorithm,
        checksums == null ? null : Arrays.copyOfRange(checksums, a, b));
  }

  private int index(int partition) {
    int i = partition - first;
    if (i < 0 || i >= starts.length) {
      throw new IllegalArgumentException(
          "partition=" + partition + ": outside [" + first + ", " + end() + ")");
    }
    return i;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionTable t
        && first == t.first
        && Arrays.equals(starts, t.starts)
        && Arrays.equals(lengths, t.lengths)
        && lastEnd == t.lastEnd
        && Arrays.equals(rawLengths, t.rawLengths)
        && algorithm == t.algorithm
        && Arrays.equals(checksums, t.checksums);
  }

  @Override
  public int hashCode() {
    return 31 * first + Arrays.hashCode(starts) + 7 * Long.hashCode(lastEnd);
  }

  @Override
  public String toString() {
    return "PartitionTable[" + first + ".." + end() + ", checksum " + algorithm + "]";
  }
}
