/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.testing.FileDescriptors;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.Checksum;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A block read straight from its data file: exactly its bytes at any size (its buffer is no larger
 * than the block, and a block larger than the buffer is read in turns), its checksum checked at the
 * end, or at close when the consumer stops early.
 */
class LocalFileBlockTest {
  private static final int FILE_BYTES = 300_000;
  private static final long START = 1_234;

  @TempDir Path dir;

  private final ReadCounters counters = new ReadCounters();
  private final BlockSource source =
      new BlockSource(
          new Owner(new PeerAddress("198.18.0.1", 1), true, true),
          "shuffle",
          "map",
          new int[] {0},
          null);

  private byte[] writeFile() throws IOException {
    byte[] bytes = new byte[FILE_BYTES];
    new Random(42).nextBytes(bytes);
    Files.write(dir.resolve("data"), bytes);
    return bytes;
  }

  private LocalFileBlock block(byte[] file, int length, int checksumDelta) {
    Checksum c = ChecksumAlgorithm.CRC32C.newChecksum();
    c.update(file, (int) START, length);
    BlockChecksum check =
        BlockChecksum.of(
            true,
            ChecksumAlgorithm.CRC32C,
            (int) c.getValue() + checksumDelta,
            new CorruptionDiagnosis("app", null));
    return new LocalFileBlock(
        source, 0, new SharedDataFile(dir.resolve("data"), 1), START, length, check, counters);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 100, 65_535, 65_536, 65_537, 200_000})
  void readsExactlyTheBlocksBytesAtEverySize(int length) throws IOException {
    byte[] file = writeFile();
    LocalFileBlock b = block(file, length, 0);
    byte[] read;
    try (InputStream in = b.stream()) {
      read = in.readAllBytes();
      assertEquals(-1, in.read(), "past the end");
    }
    assertArrayEquals(
        Arrays.copyOfRange(file, (int) START, (int) START + length), read, "length " + length);
    assertTrue(b.isReleased(), "closing the stream releases the block");
  }

  @ParameterizedTest
  @ValueSource(ints = {10, 65_536, 200_000})
  void aConsumerThatStopsEarlyStillHasTheWholeBlockChecked(int length) throws IOException {
    byte[] file = writeFile();
    LocalFileBlock b = block(file, length, 1); // the published checksum does not match
    InputStream in = b.stream();
    assertEquals(file[(int) START] & 0xff, in.read());
    IOException e = assertThrows(IOException.class, in::close);
    BlockFetchException f = assertInstanceOf(BlockFetchException.class, e);
    assertEquals(BlockFetchException.Kind.CHECKSUM, f.kind(), f.toString());
  }

  /**
   * The blocks of one map output planned together open its file once, keep it open while any of
   * them is unreleased, and close it with the last one; a released block's reads fail even while
   * the others keep the file open.
   */
  @Test
  void blocksOfOneMapOutputShareTheirFileUntilTheLastIsReleased() throws IOException {
    byte[] bytes = writeFile();
    Path data = dir.resolve("data");
    SharedDataFile file = new SharedDataFile(data, 3);
    BlockChecksum none = BlockChecksum.of(false, ChecksumAlgorithm.NONE, 0, null);
    LocalFileBlock[] blocks = new LocalFileBlock[3];
    for (int i = 0; i < 3; i++) {
      blocks[i] = new LocalFileBlock(source, i, file, 1000L * i, 1000, none, counters);
    }
    assertEquals(0, FileDescriptors.openOn(data), "opened when first read");
    InputStream first = blocks[0].stream();
    assertEquals(bytes[0] & 0xff, first.read());
    assertEquals(1, FileDescriptors.openOn(data));
    InputStream second = blocks[1].stream();
    assertEquals(bytes[1000] & 0xff, second.read());
    assertEquals(1, FileDescriptors.openOn(data), "one open file for the map output's blocks");
    first.close();
    assertEquals(1, FileDescriptors.openOn(data), "kept open for the blocks not released");
    assertThrows(IOException.class, first::read, "a released block's stream fails");
    assertArrayEquals(Arrays.copyOfRange(bytes, 1001, 2000), second.readAllBytes());
    second.close();
    try (InputStream third = blocks[2].stream()) {
      assertArrayEquals(Arrays.copyOfRange(bytes, 2000, 3000), third.readAllBytes());
    }
    assertEquals(0, FileDescriptors.openOn(data), "closed with the last block");
    blocks[2].release();
    assertEquals(0, FileDescriptors.openOn(data), "a second release changes nothing");
  }

  @Test
  void aBlockBeyondTheEndOfItsFileIsALocalFailure() throws IOException {
    byte[] file = writeFile();
    LocalFileBlock b =
        new LocalFileBlock(
            source,
            0,
            new SharedDataFile(dir.resolve("data"), 1),
            FILE_BYTES - 10,
            20,
            BlockChecksum.of(false, ChecksumAlgorithm.NONE, 0, null),
            counters);
    assertEquals(file.length, FILE_BYTES);
    try (InputStream in = b.stream()) {
      BlockFetchException f = assertThrows(BlockFetchException.class, in::readAllBytes);
      assertEquals(BlockFetchException.Kind.LOCAL, f.kind(), f.toString());
    }
  }
}
