/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * Fuzzes a decoder of a wire or file layout with mutations of valid encodings, from a fixed seed (a
 * failure names the seed and the iteration, so it replays exactly): bits flipped, the encoding cut
 * short or extended, a 1-, 2-, 4- or 8-byte field overwritten with an edge value (0, -1, the
 * extremes, the encoding's own length and its neighbours), or random bytes of a random length. The
 * decoder may accept a mutation (some are valid encodings too) or throw {@link
 * IllegalArgumentException} whose message names the bad field and its value ({@code length=-3:
 * ...}); anything else it throws (an {@code IndexOutOfBoundsException}, a {@code
 * BufferUnderflowException}, a {@code NegativeArraySizeException}, an {@code OutOfMemoryError})
 * fails the test.
 *
 * <pre>
 *   DecoderFuzz.check(List.of(valid.encode()), b -> Layout.decode(b), 42, 20_000);
 * </pre>
 */
public final class DecoderFuzz {
  /** A message names a field and its value: {@code word=value}. */
  private static final Pattern NAMES_A_FIELD = Pattern.compile("[A-Za-z][A-Za-z0-9_.]*=\\S");

  private static final long[] EDGES = {
    0,
    1,
    -1,
    2,
    7,
    8,
    16,
    255,
    256,
    65535,
    65536,
    Integer.MAX_VALUE,
    Integer.MIN_VALUE,
    Integer.MAX_VALUE + 1L,
    Long.MAX_VALUE,
    Long.MIN_VALUE,
    0x80,
    0x8000,
    0x80000000L
  };

  private DecoderFuzz() {}

  /** Decodes one encoding; what it returns does not matter. */
  @FunctionalInterface
  public interface Decoder {
    void decode(byte[] bytes) throws Exception;
  }

  /** What a run did: mutations the decoder accepted and rejected (with a named field). */
  public record Result(int accepted, int rejected) {}

  /**
   * Checks that every one of {@code valid} decodes, then decodes {@code count} mutations of them.
   *
   * @throws AssertionError naming the seed, iteration, mutation and bytes when the decoder throws
   *     anything but an IllegalArgumentException naming a field
   */
  public static Result check(List<byte[]> valid, Decoder decoder, long seed, int count) {
    if (valid.isEmpty()) {
      throw new IllegalArgumentException("valid encodings: none given");
    }
    for (byte[] v : valid) {
      try {
        decoder.decode(v.clone());
      } catch (Throwable t) {
        throw new AssertionError("a valid encoding does not decode: " + hex(v), t);
      }
    }
    Random random = new Random(seed);
    int accepted = 0;
    int rejected = 0;
    StringBuilder how = new StringBuilder();
    for (int i = 0; i < count; i++) {
      how.setLength(0);
      byte[] input = mutate(valid.get(random.nextInt(valid.size())), random, how);
      try {
        decoder.decode(input);
        accepted++;
      } catch (IllegalArgumentException e) {
        if (e.getMessage() == null || !NAMES_A_FIELD.matcher(e.getMessage()).find()) {
          throw failure(seed, i, how, input, "rejected without naming field=value", e);
        }
        rejected++;
      } catch (Throwable t) {
        throw failure(seed, i, how, input, "threw " + t.getClass().getSimpleName(), t);
      }
    }
    return new Result(accepted, rejected);
  }

  private static AssertionError failure(
      long seed, int iteration, CharSequence how, byte[] input, String what, Throwable cause) {
    return new AssertionError(
        "seed="
            + seed
            + " iteration="
            + iteration
            + " ("
            + how
            + "): "
            + what
            + ": "
            + cause.getMessage()
            + "\n  input "
            + hex(input),
        cause);
  }

  /** One or two mutations of {@code v}, described in {@code how}. */
  static byte[] mutate(byte[] v, Random random, StringBuilder how) {
    byte[] b = mutateOnce(v, random, how);
    if (random.nextInt(4) == 0) {
      how.append(", then ");
      b = mutateOnce(b, random, how);
    }
    return b;
  }

  private static byte[] mutateOnce(byte[] v, Random random, StringBuilder how) {
    switch (random.nextInt(5)) {
      case 0 -> {
        byte[] b = v.clone();
        int flips = 1 + random.nextInt(4);
        how.append("flipped ").append(flips).append(" bit(s)");
        for (int k = 0; k < flips && b.length > 0; k++) {
          b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return b;
      }
      case 1 -> {
        int n = v.length == 0 ? 0 : random.nextInt(v.length);
        how.append("cut to ").append(n).append(" bytes");
        return java.util.Arrays.copyOf(v, n);
      }
      case 2 -> {
        int extra = 1 + random.nextInt(32);
        byte[] b = java.util.Arrays.copyOf(v, v.length + extra);
        for (int k = v.length; k < b.length; k++) {
          b[k] = (byte) random.nextInt(256);
        }
        how.append("extended by ").append(extra).append(" bytes");
        return b;
      }
      case 3 -> {
        return overwriteField(v, random, how);
      }
      default -> {
        byte[] b = new byte[random.nextInt(2 * v.length + 9)];
        random.nextBytes(b);
        how.append("random ").append(b.length).append(" bytes");
        return b;
      }
    }
  }

  /** Overwrites a big-endian field of 1, 2, 4 or 8 bytes with an edge value. */
  private static byte[] overwriteField(byte[] v, Random random, StringBuilder how) {
    byte[] b = v.clone();
    int width = 1 << random.nextInt(4);
    if (b.length < width) {
      how.append("nothing to overwrite");
      return b;
    }
    int at = random.nextInt(b.length - width + 1);
    long value =
        random.nextInt(3) == 0
            ? v.length + random.nextInt(5) - 2L
            : EDGES[random.nextInt(EDGES.length)];
    for (int k = 0; k < width; k++) {
      b[at + k] = (byte) (value >>> (8 * (width - 1 - k)));
    }
    how.append(width).append("-byte field at ").append(at).append(" set to ").append(value);
    return b;
  }

  private static String hex(byte[] b) {
    return b.length > 256
        ? HexFormat.of().formatHex(b, 0, 256) + "... (" + b.length + " bytes)"
        : HexFormat.of().formatHex(b);
  }
}
