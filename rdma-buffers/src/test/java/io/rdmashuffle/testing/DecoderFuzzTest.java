/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fuzz helper finds what it promises to find, and replays from its seed. */
class DecoderFuzzTest {
  private static final List<byte[]> VALID = List.of(new byte[] {0, 0, 0, 3, 1, 2, 3});

  /** A length-prefixed decoder without checks: underflows and negative sizes. */
  private static void careless(byte[] b) {
    ByteBuffer in = ByteBuffer.wrap(b);
    byte[] body = new byte[in.getInt()];
    in.get(body);
  }

  private static void careful(byte[] b) {
    if (b.length < 4) {
      throw new IllegalArgumentException("length=" + b.length + ": shorter than the prefix");
    }
    int n = ByteBuffer.wrap(b).getInt();
    if (n < 0 || n > b.length - 4) {
      throw new IllegalArgumentException(
          "body length=" + n + ": outside the " + b.length + " bytes");
    }
  }

  @Test
  void aDecoderThatUnderflowsFailsNamingSeedIterationAndInput() {
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () -> DecoderFuzz.check(VALID, DecoderFuzzTest::careless, 5, 1000));
    assertTrue(e.getMessage().startsWith("seed=5 iteration="), e.getMessage());
    assertTrue(e.getMessage().contains("input "), e.getMessage());
    assertFalse(e.getCause() instanceof IllegalArgumentException);
  }

  @Test
  void aRejectionThatNamesNoFieldFails() {
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () ->
                DecoderFuzz.check(
                    VALID,
                    b -> {
                      if (b.length != 7) {
                        throw new IllegalArgumentException("bad input");
                      }
                    },
                    6,
                    1000));
    assertTrue(e.getMessage().contains("rejected without naming field=value"), e.getMessage());
  }

  @Test
  void aCarefulDecoderPassesAndSeesBothOutcomes() {
    DecoderFuzz.Result r = DecoderFuzz.check(VALID, DecoderFuzzTest::careful, 7, 5000);
    assertEquals(5000, r.accepted() + r.rejected());
    assertTrue(r.accepted() > 0 && r.rejected() > 0, r.toString());
  }

  @Test
  void anInvalidStartingPointIsRefused() {
    assertThrows(
        AssertionError.class,
        () -> DecoderFuzz.check(List.of(new byte[] {1}), DecoderFuzzTest::careful, 8, 10));
  }

  @Test
  void theSameSeedMutatesTheSameWay() {
    assertEquals(mutations(9), mutations(9));
    assertNotEquals(mutations(9), mutations(10));
  }

  private static List<String> mutations(long seed) {
    Random random = new Random(seed);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      StringBuilder how = new StringBuilder();
      out.add(
          java.util.HexFormat.of().formatHex(DecoderFuzz.mutate(VALID.get(0), random, how))
              + " "
              + how);
    }
    return out;
  }
}
