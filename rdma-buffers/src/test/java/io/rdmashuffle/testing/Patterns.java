/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Test data whose every byte depends on its offset, so a misplaced byte is always caught. */
public final class Patterns {
  private Patterns() {}

  public static byte at(long offset, int seed) {
    long x = offset * 0x9E3779B97F4A7C15L + seed;
    return (byte) (x >>> 56 ^ x >>> 29 ^ offset);
  }

  /** Fills {@code b}'s whole capacity: byte i is {@code at(base + i, seed)}. */
  public static void fill(ByteBuffer b, long base, int seed) {
    for (int i = 0; i < b.capacity(); i++) {
      b.put(i, at(base + i, seed));
    }
  }

  /** Index of the first byte of {@code b[pos, pos+len)} that differs from the pattern, or -1. */
  public static long firstMismatch(ByteBuffer b, int pos, int len, long base, int seed) {
    for (int i = 0; i < len; i++) {
      if (b.get(pos + i) != at(base + i, seed)) {
        return i;
      }
    }
    return -1;
  }

  /** Writes a file of {@code length} pattern bytes. */
  public static Path file(Path path, long length, int seed) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            path,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
      for (long off = 0; off < length; off += chunk.capacity()) {
        int n = (int) Math.min(chunk.capacity(), length - off);
        chunk.clear().limit(n);
        for (int i = 0; i < n; i++) {
          chunk.put(i, at(off + i, seed));
        }
        while (chunk.hasRemaining()) {
          ch.write(chunk);
        }
      }
    }
    return path;
  }
}
