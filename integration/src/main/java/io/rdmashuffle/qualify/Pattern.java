/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.nio.ByteBuffer;

/** The bytes the READ test serves: a function of the offset, so a reader checks what it got. */
final class Pattern {
  private Pattern() {}

  static byte at(long offset) {
    return (byte) (offset * 7 + (offset >> 12) * 13 + 1);
  }

  static void fill(ByteBuffer b) {
    for (int i = 0; i < b.capacity(); i++) {
      b.put(i, at(i));
    }
  }

  /** The first offset in {@code got} (bytes READ from {@code offset}) that is wrong, or -1. */
  static long firstWrong(ByteBuffer got, int length, long offset) {
    for (int i = 0; i < length; i++) {
      if (got.get(i) != at(offset + i)) {
        return i;
      }
    }
    return -1;
  }
}
