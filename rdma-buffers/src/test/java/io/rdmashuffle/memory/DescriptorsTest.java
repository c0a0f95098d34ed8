/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DescriptorsTest {
  @Test
  void regionDescriptorRoundTripsAtItsDocumentedOffsets() {
    RegionDescriptor d = new RegionDescriptor(0x1122334455667788L, 0x01020304, 0xCAFEBABE);
    ByteBuffer b = ByteBuffer.allocate(20);
    d.writeTo(b, 4);
    assertEquals(0x1122334455667788L, b.getLong(4 + RegionDescriptor.ADDRESS_OFFSET));
    assertEquals(0x01020304, b.getInt(4 + RegionDescriptor.LENGTH_OFFSET));
    assertEquals(0xCAFEBABE, b.getInt(4 + RegionDescriptor.RKEY_OFFSET));
    assertEquals(d, RegionDescriptor.readFrom(b, 4));
  }

  @Test
  void regionDescriptorToStringKeepsCapabilitiesOut() {
    String s = new RegionDescriptor(123456789L, 10, 987654).toString();
    assertFalse(s.contains("123456789"), s);
    assertFalse(s.contains("987654"), s);
  }

  @Test
  void regionDescriptorValidationNamesTheField() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new RegionDescriptor(0, -1, 0));
    assertTrue(e.getMessage().contains("length=-1"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> RegionDescriptor.readFrom(ByteBuffer.allocate(15), 0));
  }

  private static RegisteredFileDescriptor file(long length, long piece) {
    List<RegionDescriptor> pieces = new ArrayList<>();
    for (long off = 0, i = 1; off < length; off += piece, i++) {
      pieces.add(new RegionDescriptor(i << 32, (int) Math.min(piece, length - off), (int) i));
    }
    return new RegisteredFileDescriptor(length, piece, pieces);
  }

  @Test
  void fileDescriptorRoundTripsAndSplitsRangesAtPieceBoundaries() {
    RegisteredFileDescriptor d = file(250, 100);
    RegisteredFileDescriptor back = RegisteredFileDescriptor.decode(d.encode());
    assertEquals(d.pieces(), back.pieces());
    assertEquals(250, back.fileLength());
    List<long[]> parts = new ArrayList<>();
    back.segments(95, 110, (fo, addr, rkey, n) -> parts.add(new long[] {fo, addr, rkey, n}));
    assertEquals(3, parts.size());
    assertArrayEquals(new long[] {95, (1L << 32) + 95, 1, 5}, parts.get(0));
    assertArrayEquals(new long[] {100, 2L << 32, 2, 100}, parts.get(1));
    assertArrayEquals(new long[] {200, 3L << 32, 3, 5}, parts.get(2));
  }

  @Test
  void fileDescriptorOfAnEmptyFileHasNoPieces() {
    RegisteredFileDescriptor d = file(0, 4096);
    assertEquals(0, d.pieces().size());
    assertEquals(RegisteredFileDescriptor.HEADER_BYTES, d.encode().length);
    List<Long> parts = new ArrayList<>();
    d.segments(0, 0, (fo, a, r, n) -> parts.add(fo));
    assertEquals(List.of(), parts);
  }

  @Test
  void fileDescriptorRejectsRangesOutsideTheFileAndInconsistentPieces() {
    RegisteredFileDescriptor d = file(250, 100);
    assertThrows(IllegalArgumentException.class, () -> d.segments(200, 51, (a, b, c, e) -> {}));
    assertThrows(IllegalArgumentException.class, () -> d.segments(-1, 1, (a, b, c, e) -> {}));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new RegisteredFileDescriptor(250, 100, file(400, 100).pieces()));
    assertTrue(e.getMessage().contains("pieces=4"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new RegisteredFileDescriptor(250, 100, file(300, 100).pieces()));
    assertTrue(e.getMessage().contains("piece 2 length=100"), e.getMessage());
    byte[] bytes = d.encode();
    bytes[3] = 9;
    e = assertThrows(IllegalArgumentException.class, () -> RegisteredFileDescriptor.decode(bytes));
    assertTrue(e.getMessage().contains("version=9"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> RegisteredFileDescriptor.decode(java.util.Arrays.copyOf(d.encode(), 30)));
  }

  @Test
  void offsetsMatchThePicturesInTheLayoutComments() {
    assertArrayEquals(
        new int[] {0, 8, 12, 16},
        new int[] {
          RegionDescriptor.ADDRESS_OFFSET,
          RegionDescriptor.LENGTH_OFFSET,
          RegionDescriptor.RKEY_OFFSET,
          RegionDescriptor.BYTES
        });
    assertArrayEquals(
        new int[] {0, 4, 8, 16, 24},
        new int[] {
          RegisteredFileDescriptor.VERSION_OFFSET, RegisteredFileDescriptor.COUNT_OFFSET,
          RegisteredFileDescriptor.FILE_LENGTH_OFFSET, RegisteredFileDescriptor.PIECE_SIZE_OFFSET,
          RegisteredFileDescriptor.HEADER_BYTES
        });
    assertEquals(2, io.rdmashuffle.transport.PeerAddress.HOST_OFFSET);
    assertEquals(4 + 9, new io.rdmashuffle.transport.PeerAddress("127.0.0.1", 5).encodedLength());
  }
}
