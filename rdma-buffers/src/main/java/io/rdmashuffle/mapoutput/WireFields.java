/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What the wire layouts of this package share: strings as UTF-8 with a 2-byte length, magic and
 * version checks, and a reader of fields that turns every short read into an error naming the
 * message, the field and the offset.
 */
final class WireFields {
  final ByteBuffer b;
  final String what;

  WireFields(ByteBuffer bytes, String what) {
    this.b = bytes.slice();
    this.what = what;
  }

  void need(int n, String field) {
    if (b.remaining() < n) {
      throw new IllegalArgumentException(
          what
              + " "
              + field
              + ": truncated at offset="
              + b.position()
              + " (remaining="
              + b.remaining()
              + ", needed="
              + n
              + ")");
    }
  }

  String string(String field, int max) {
    need(2, field + " length");
    int n = b.getShort() & 0xffff;
    if (n > max) {
      throw new IllegalArgumentException(field + " length=" + n + ": more than " + max);
    }
    need(n, field);
    byte[] s = new byte[n];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  void end() {
    if (b.hasRemaining()) {
      throw new IllegalArgumentException(
          what + " length=" + b.limit() + ": " + b.remaining() + " bytes after its end");
    }
  }

  static void expect(String field, int value, int expected) {
    if (value != expected) {
      throw new IllegalArgumentException(
          field
              + "=0x"
              + Integer.toHexString(value)
              + ": expected 0x"
              + Integer.toHexString(expected));
    }
  }

  static void putString(ByteBuffer b, byte[] s) {
    b.putShort((short) s.length).put(s);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
