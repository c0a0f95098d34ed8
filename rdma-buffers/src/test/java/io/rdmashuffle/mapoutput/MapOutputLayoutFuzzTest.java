/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.DecoderFuzz;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The decoders of the bytes processes exchange about map outputs (locate requests and answers, a
 * peer's input) and of the meta file a serving process reads back, fuzzed from fixed seeds: they
 * accept a mutation or refuse it naming the field, nothing else.
 */
@Timeout(120)
class MapOutputLayoutFuzzTest {
  private static final int COUNT = 20_000;

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  @Test
  void locateRequestDecodingRejectsEveryMutationByName() {
    DecoderFuzz.Result r =
        DecoderFuzz.check(
            List.of(bytes(LocateLayout.encode(LocateLayoutTest.request()))),
            b -> LocateLayout.decodeRequest(ByteBuffer.wrap(b)),
            31,
            COUNT);
    assertTrue(r.rejected() > COUNT / 2, r.toString());
  }

  @Test
  void locateAnswerDecodingRejectsEveryMutationByName() {
    DecoderFuzz.Result r =
        DecoderFuzz.check(
            List.of(bytes(LocateLayout.encode(LocateLayoutTest.answer()))),
            b -> LocateLayout.decodeAnswer(ByteBuffer.wrap(b)),
            32,
            COUNT);
    assertTrue(r.rejected() > COUNT / 2, r.toString());
  }

  @Test
  void checksumRequestDecodingRejectsEveryMutationByName() {
    DecoderFuzz.Result r =
        DecoderFuzz.check(
            List.of(bytes(ChecksumLayout.encode(new ChecksumRequest("3", "17", 5)))),
            b -> ChecksumLayout.decodeRequest(ByteBuffer.wrap(b)),
            35,
            COUNT);
    assertTrue(r.rejected() > COUNT / 2, r.toString());
  }

  @Test
  void checksumAnswerDecodingRejectsEveryMutationByName() {
    DecoderFuzz.Result r =
        DecoderFuzz.check(
            List.of(
                bytes(ChecksumLayout.encode(ChecksumAnswer.ok(ChecksumAlgorithm.CRC32C, 1, 2, 99))),
                bytes(
                    ChecksumLayout.encode(
                        ChecksumAnswer.failed(ChecksumAnswer.Status.NOT_FOUND, "gone")))),
            b -> ChecksumLayout.decodeAnswer(ByteBuffer.wrap(b)),
            36,
            COUNT);
    assertTrue(r.rejected() > COUNT / 4, r.toString());
  }

  @Test
  void metaFileDecodingRejectsEveryMutationByName() {
    byte[] meta =
        bytes(
            MetaFileLayout.encode(
                7,
                42L,
                new long[] {10, 0, 290, 1},
                ChecksumAlgorithm.CRC32C,
                new int[] {1, 2, -3, 4}));
    DecoderFuzz.Result r =
        DecoderFuzz.check(
            List.of(meta), b -> MetaFileLayout.decode(ByteBuffer.wrap(b), 7, 42L, 301), 33, COUNT);
    assertTrue(r.rejected() > COUNT / 2, r.toString());
  }
}
