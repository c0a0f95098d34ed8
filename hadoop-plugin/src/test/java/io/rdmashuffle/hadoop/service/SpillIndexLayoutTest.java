/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.PartitionTable;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.SpillRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillIndexLayoutTest {
  @TempDir Path dir;

  @Test
  void readsTheIndexHadoopWritesIntoAPartitionTable() throws Exception {
    SpillRecord hadoop = new SpillRecord(3);
    hadoop.putIndex(new IndexRecord(0, 50, 40), 0);
    hadoop.putIndex(new IndexRecord(40, 0, 6), 1);
    hadoop.putIndex(new IndexRecord(46, 1L << 33, 1L << 32), 2);
    Path file = dir.resolve("file.out.index");
    hadoop.writeToFile(new org.apache.hadoop.fs.Path(file.toString()), new JobConf());
    byte[] bytes = Files.readAllBytes(file);
    assertEquals(SpillIndexLayout.fileLength(3), bytes.length);

    PartitionTable t = SpillIndexLayout.decode(ByteBuffer.wrap(bytes));
    assertEquals(3, t.size());
    assertEquals(ChecksumAlgorithm.NONE, t.algorithm());
    for (int p = 0; p < 3; p++) {
      IndexRecord r = hadoop.getIndex(p);
      assertEquals(r.startOffset, t.start(p));
      assertEquals(r.partLength, t.length(p));
      assertEquals(r.rawLength, t.rawLength(p));
    }
    assertArrayEquals(
        bytes,
        SpillIndexLayout.encode(
                new long[] {0, 40, 46}, new long[] {50, 0, 1L << 33}, new long[] {40, 6, 1L << 32})
            .array());
  }

  @Test
  void aDamagedIndexIsRejectedNamingWhat() {
    byte[] good = SpillIndexLayout.encode(new long[] {0}, new long[] {9}, new long[] {7}).array();
    byte[] flipped = good.clone();
    flipped[SpillIndexLayout.ENTRY_PART_LENGTH_OFFSET + 7] ^= 1;
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SpillIndexLayout.decode(ByteBuffer.wrap(flipped)));
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    IllegalArgumentException shortened =
        assertThrows(
            IllegalArgumentException.class,
            () -> SpillIndexLayout.decode(ByteBuffer.wrap(java.util.Arrays.copyOf(good, 30))));
    assertTrue(shortened.getMessage().contains("length=30"), shortened.getMessage());
  }
}
