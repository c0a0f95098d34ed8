/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.testing.Patterns;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Meta files: what is committed is what is read back; damaged files are errors, never crashes. */
class MetaFilesTest {
  @TempDir Path dir;

  private static int crc(Path data, long from, int length) throws IOException {
    CRC32C c = new CRC32C();
    c.update(ByteBuffer.wrap(Files.readAllBytes(data), (int) from, length));
    return (int) c.getValue();
  }

  @Test
  void commitComputesACrc32cPerPartitionThroughReadsAndReadGivesItBack() throws Exception {
    long[] lengths = {10, 0, 300_000, 5};
    Path data = Patterns.file(dir.resolve("shuffle_3_4_0.data"), 300_015, 9);
    PartitionTable t = MetaFiles.commit(data, 3, 4, lengths, null, null, true);
    assertEquals(ChecksumAlgorithm.CRC32C, t.algorithm());
    assertEquals(crc(data, 10, 300_000), t.checksum(2));
    assertEquals(crc(data, 300_010, 5), t.checksum(3));
    assertEquals(t, MetaFiles.read(data, 3, 4, 300_015));
    assertTrue(Files.exists(MetaFiles.pathFor(data)));
  }

  /**
   * Whoever may read the data file may read its meta file: under LinuxContainerExecutor Spark makes
   * its shuffle files world-readable for the NodeManager's shuffle service (its sub-dirs carry no
   * setgid group), while the container's umask 0027 would leave the meta file to its user alone.
   */
  @Test
  void theMetaFileIsAsReadableAsItsDataFile() throws Exception {
    Path data = Patterns.file(dir.resolve("shuffle_3_5_0.data"), 100, 1);
    Files.setPosixFilePermissions(
        data, java.nio.file.attribute.PosixFilePermissions.fromString("rw----r--"));
    MetaFiles.commit(data, 3, 5, new long[] {100}, null, null, true);
    assertEquals(
        "rw----r--",
        java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(MetaFiles.pathFor(data))));
  }

  @Test
  void knownChecksumsAreTakenAsTheyAre() throws Exception {
    Path data = Patterns.file(dir.resolve("d"), 30, 1);
    PartitionTable t =
        MetaFiles.commit(
            data,
            1,
            2,
            new long[] {10, 20},
            ChecksumAlgorithm.ADLER32,
            new long[] {0x1234, 0x5678},
            true);
    assertEquals(ChecksumAlgorithm.ADLER32, t.algorithm());
    assertEquals(0x5678, t.checksum(1));
    assertEquals(
        ChecksumAlgorithm.NONE,
        MetaFiles.commit(data, 1, 2, new long[] {10, 20}, null, null, false).algorithm());
  }

  @Test
  void aDataFileThatDoesNotMatchItsLengthsOrIsTruncatedIsAnIoError() throws Exception {
    Path data = Patterns.file(dir.resolve("d"), 30, 1);
    IOException e =
        assertThrows(
            IOException.class,
            () -> MetaFiles.commit(data, 1, 2, new long[] {10, 21}, null, null, true));
    assertTrue(e.getMessage().contains("length=30"), e.getMessage());
    MetaFiles.commit(data, 1, 2, new long[] {10, 20}, null, null, true);
    try (FileChannel ch = FileChannel.open(data, StandardOpenOption.WRITE)) {
      ch.truncate(15);
    }
    e = assertThrows(IOException.class, () -> MetaFiles.read(data, 1, 2, 15));
    assertTrue(e.getMessage().contains("beyond the data file"), e.getMessage());
    e = assertThrows(IOException.class, () -> MetaFiles.read(data, 1, 3, 30));
    assertTrue(e.getMessage().contains("mapId=2"), e.getMessage());
  }
}
