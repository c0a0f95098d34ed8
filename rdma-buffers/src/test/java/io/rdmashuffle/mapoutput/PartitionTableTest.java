/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class PartitionTableTest {
  private static final int WIDE = 4000;

  /**
   * A serving process keeps one table per registered output, and its heap bounds how many it can
   * hold (serve.maxTableBytes): ServingAtScaleIT's NodeManager (1 GiB) held 3,238 outputs of 4,000
   * partitions at 80 KB each, too few for its 200 readers. Spark's and MapReduce's partitions are
   * contiguous: their lengths follow from the starts, so a table keeps 12 bytes a partition.
   */
  @Test
  void aContiguousTableKeepsTwelveBytesAPartition() {
    long[] ends = new long[WIDE];
    int[] checksums = new int[WIDE];
    for (int p = 0; p < WIDE; p++) {
      ends[p] = 1000L * (p + 1);
      checksums[p] = p;
    }
    PartitionTable t = PartitionTable.ofEnds(ends, ChecksumAlgorithm.CRC32, checksums);
    assertTrue(t.heapBytes() <= 256 + 12L * WIDE, "heap of the table: " + t.heapBytes());
    assertEquals(t.heapBytes(), PartitionTable.heapBytes(WIDE, true, false));
    // a table with gaps keeps its lengths, and says so
    PartitionTable gaps =
        new PartitionTable(
            0, new long[] {0, 100}, new long[] {50, 50}, null, ChecksumAlgorithm.NONE, null);
    assertEquals(PartitionTable.heapBytes(2, false, false), gaps.heapBytes());
    assertTrue(gaps.heapBytes() > PartitionTable.heapBytes(2, true, false));
  }

  @Test
  void everyPartitionReadsTheSameWhetherTheTableKeepsLengthsOrNot() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      int n = 1 + random.nextInt(50);
      long[] starts = new long[n];
      long[] lengths = new long[n];
      long at = random.nextInt(3);
      boolean gaps = random.nextBoolean();
      for (int i = 0; i < n; i++) {
        starts[i] = at;
        lengths[i] = random.nextInt(4) == 0 ? 0 : random.nextInt(1000);
        at += lengths[i] + (gaps && random.nextBoolean() ? random.nextInt(10) : 0);
      }
      int first = random.nextInt(5);
      PartitionTable t =
          new PartitionTable(first, starts, lengths, null, ChecksumAlgorithm.NONE, null);
      long extent = 0;
      for (int i = 0; i < n; i++) {
        assertEquals(starts[i], t.start(first + i));
        assertEquals(lengths[i], t.length(first + i));
        assertEquals(lengths[i], t.rawLength(first + i));
        extent = Math.max(extent, starts[i] + lengths[i]);
      }
      assertEquals(extent, t.extent());
      t.checkWithin(extent);
      if (extent > 0) {
        assertThrows(IllegalArgumentException.class, () -> t.checkWithin(t.extent() - 1));
      }
      int from = first + random.nextInt(n);
      int to = from + random.nextInt(first + n - from + 1);
      PartitionTable s = t.slice(from, to);
      assertEquals(to - from, s.size());
      for (int p = from; p < to; p++) {
        assertEquals(t.start(p), s.start(p));
        assertEquals(t.length(p), s.length(p));
        assertTrue(t.sameBlock(s, p));
      }
      PartitionTable copy =
          new PartitionTable(first, starts, lengths, null, ChecksumAlgorithm.NONE, null);
      assertEquals(t, copy);
      assertEquals(t.hashCode(), copy.hashCode());
      if (n > 1) {
        long[] longer = lengths.clone();
        longer[n - 1]++;
        assertNotEquals(
            t, new PartitionTable(first, starts, longer, null, ChecksumAlgorithm.NONE, null));
      }
    }
  }
}
