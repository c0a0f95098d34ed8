/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.DecoderFuzz;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every decoder of a memory layout, fuzzed from fixed seeds: only named rejections. */
@Timeout(120)
class LayoutFuzzTest {
  private static final int COUNT = 5_000;

  private static byte[] region(long address, int length, int rkey) {
    ByteBuffer b = ByteBuffer.allocate(RegionDescriptor.BYTES);
    new RegionDescriptor(address, length, rkey).writeTo(b, 0);
    return b.array();
  }

  @Test
  void regionDescriptorDecodingRejectsEveryMutationByName() {
    List<byte[]> valid =
        List.of(region(0, 0, 0), region(1L << 32, 4096, 7), region(Long.MAX_VALUE - 100, 100, -1));
    DecoderFuzz.Result r =
        DecoderFuzz.check(valid, b -> RegionDescriptor.readFrom(ByteBuffer.wrap(b), 0), 11, COUNT);
    assertTrue(r.rejected() > 0 && r.accepted() > 0, r.toString());
  }

  @Test
  void regionDescriptorDecodingAtAnOffsetRejectsEveryMutationByName() {
    byte[] framed = new byte[5 + RegionDescriptor.BYTES];
    System.arraycopy(region(1L << 40, 300, 9), 0, framed, 5, RegionDescriptor.BYTES);
    DecoderFuzz.check(
        List.of(framed), b -> RegionDescriptor.readFrom(ByteBuffer.wrap(b), 5), 12, COUNT);
  }

  private static byte[] file(long length, long pieceSize) {
    List<RegionDescriptor> pieces = new ArrayList<>();
    for (long off = 0, i = 1; off < length; off += pieceSize, i++) {
      pieces.add(new RegionDescriptor(i << 32, (int) Math.min(pieceSize, length - off), (int) i));
    }
    return new RegisteredFileDescriptor(length, pieceSize, pieces).encode();
  }

  @Test
  void registeredFileDescriptorDecodingRejectsEveryMutationByName() {
    List<byte[]> valid =
        List.of(
            file(0, 4096),
            file(250, 100),
            file(3 * 65536L + 7, 65536),
            file(Integer.MAX_VALUE + 10L, Integer.MAX_VALUE));
    DecoderFuzz.Result r = DecoderFuzz.check(valid, RegisteredFileDescriptor::decode, 13, COUNT);
    assertTrue(r.rejected() > COUNT / 2, r.toString());
  }
}
