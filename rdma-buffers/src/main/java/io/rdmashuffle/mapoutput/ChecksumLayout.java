/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Byte layout (big-endian) of {@link ChecksumRequest} and {@link ChecksumAnswer}, the call a reader
 * makes when a block's bytes did not match their published checksum. Strings are UTF-8 with a
 * 2-byte length before them.
 *
 * <pre>
 * REQUEST
 *  0       4       6           10
 *  +-------+-------+-----------+---------+-----+
 *  | magic |version| partition | shuffle | map |
 *  +-------+-------+-----------+---------+-----+
 *
 * ANSWER
 *  0       4       6       7     8           12           16       24
 *  +-------+-------+-------+-----+-----------+------------+--------+---------+
 *  | magic |version|status | alg | published | recomputed | length | message |
 *  +-------+-------+-------+-----+-----------+------------+--------+---------+
 * </pre>
 */
public final class ChecksumLayout {
  public static final int REQUEST_MAGIC = 0x52534351; // "RSCQ"
  public static final int ANSWER_MAGIC = 0x52534341; // "RSCA"
  public static final short VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
  public static final int REQUEST_PARTITION_OFFSET = VERSION_OFFSET + Short.BYTES;
  public static final int REQUEST_FIXED_BYTES = REQUEST_PARTITION_OFFSET + Integer.BYTES;

  public static final int ANSWER_STATUS_OFFSET = VERSION_OFFSET + Short.BYTES;
  public static final int ANSWER_ALGORITHM_OFFSET = ANSWER_STATUS_OFFSET + Byte.BYTES;
  public static final int ANSWER_PUBLISHED_OFFSET = ANSWER_ALGORITHM_OFFSET + Byte.BYTES;
  public static final int ANSWER_RECOMPUTED_OFFSET = ANSWER_PUBLISHED_OFFSET + Integer.BYTES;
  public static final int ANSWER_LENGTH_OFFSET = ANSWER_RECOMPUTED_OFFSET + Integer.BYTES;
  public static final int ANSWER_FIXED_BYTES = ANSWER_LENGTH_OFFSET + Long.BYTES;

  public static final int MAX_NAME_BYTES = OutputId.MAX_NAME_BYTES;
  public static final int MAX_MESSAGE_BYTES = 1024;

  private ChecksumLayout() {}

  public static ByteBuffer encode(ChecksumRequest r) {
    byte[] shuffle = utf8(r.shuffle());
    byte[] map = utf8(r.map());
    ByteBuffer b = ByteBuffer.allocate(REQUEST_FIXED_BYTES + 4 + shuffle.length + map.length);
    b.putInt(REQUEST_MAGIC).putShort(VERSION).putInt(r.partition());
    putString(b, shuffle);
    putString(b, map);
    return b.flip();
  }

  /**
   * @throws IllegalArgumentException when the bytes are not a valid request (names the field)
   */
  public static ChecksumRequest decodeRequest(ByteBuffer bytes) {
    ByteBuffer b = bytes.slice();
    try {
      expect("request magic", b.getInt(), REQUEST_MAGIC);
      expect("request version", b.getShort(), VERSION);
      int partition = b.getInt();
      String shuffle = getString(b, "shuffle", MAX_NAME_BYTES);
      String map = getString(b, "map", MAX_NAME_BYTES);
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(
            "checksum request length="
                + bytes.remaining()
                + ": "
                + b.remaining()
                + " bytes after its end");
      }
      return new ChecksumRequest(shuffle, map, partition);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException(
          "checksum request length=" + bytes.remaining() + ": truncated at offset=" + b.position(),
          e);
    }
  }

  public static ByteBuffer encode(ChecksumAnswer a) {
    byte[] message = truncate(utf8(a.message()), MAX_MESSAGE_BYTES);
    ByteBuffer b = ByteBuffer.allocate(ANSWER_FIXED_BYTES + 2 + message.length);
    b.putInt(ANSWER_MAGIC)
        .putShort(VERSION)
        .put((byte) a.status().code())
        .put((byte) a.algorithm().id())
        .putInt(a.published())
        .putInt(a.recomputed())
        .putLong(a.length());
    putString(b, message);
    return b.flip();
  }

  /**
   * @throws IllegalArgumentException when the bytes are not a valid answer (names the field)
   */
  public static ChecksumAnswer decodeAnswer(ByteBuffer bytes) {
    ByteBuffer b = bytes.slice();
    try {
      expect("answer magic", b.getInt(), ANSWER_MAGIC);
      expect("answer version", b.getShort(), VERSION);
      ChecksumAnswer.Status status = ChecksumAnswer.Status.of(b.get());
      ChecksumAlgorithm algorithm = ChecksumAlgorithm.fromId(b.get());
      int published = b.getInt();
      int recomputed = b.getInt();
      long length = b.getLong();
      if (length < 0) {
        throw new IllegalArgumentException("checksum answer length=" + length + ": negative");
      }
      String message = getString(b, "message", MAX_MESSAGE_BYTES);
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(
            "checksum answer length="
                + bytes.remaining()
                + ": "
                + b.remaining()
                + " bytes after its end");
      }
      return new ChecksumAnswer(status, algorithm, published, recomputed, length, message);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException(
          "checksum answer length=" + bytes.remaining() + ": truncated at offset=" + b.position(),
          e);
    }
  }

  private static void expect(String field, int value, int expected) {
    if (value != expected) {
      throw new IllegalArgumentException(
          field
              + "=0x"
              + Integer.toHexString(value)
              + ": expected 0x"
              + Integer.toHexString(expected));
    }
  }

  private static String getString(ByteBuffer b, String field, int max) {
    int n = Short.toUnsignedInt(b.getShort());
    if (n > max) {
      throw new IllegalArgumentException(field + " length=" + n + ": over " + max);
    }
    byte[] s = new byte[n];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  private static void putString(ByteBuffer b, byte[] s) {
    b.putShort((short) s.length).put(s);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] truncate(byte[] s, int max) {
    return s.length <= max ? s : Arrays.copyOf(s, max);
  }
}
