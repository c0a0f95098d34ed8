/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.handshake.FrameMac;

/**
 * Byte layout (big-endian) of the frames on a CALL connection, after the handshake. Every frame
 * carries the tag of its direction's {@link FrameMac} over its header and payload.
 *
 * <pre>
 * CALL request, caller to server; ANSWER, server to caller:
 *  0               4               8               12                       12 + n          28 + n
 *  +---------------+---------------+---------------+------------------------+---------------+
 *  |    call id    | service/status|   length n    |     payload (n)        |   tag (16)    |
 *  +---------------+---------------+---------------+------------------------+---------------+
 * </pre>
 *
 * A request names the service ({@link io.rdmashuffle.transport.CallServices}); an answer echoes the
 * call id and carries a status: 0 and the answer's bytes, or a refusal's status ({@link
 * io.rdmashuffle.transport.CallRefusedException}) and its reason in UTF-8. Answers may come in any
 * order.
 */
public final class CallFrameLayout {
  public static final int ID_OFFSET = 0;
  public static final int CODE_OFFSET = ID_OFFSET + 4;
  public static final int LENGTH_OFFSET = CODE_OFFSET + 4;
  public static final int HEADER_BYTES = LENGTH_OFFSET + 4;
  public static final int TAG_BYTES = FrameMac.TAG_BYTES;
  public static final int STATUS_OK = 0;

  private CallFrameLayout() {}

  /** A decoded header: the service (request) or status (answer) is its {@code code}. */
  public record Header(int id, int code, int length) {}

  /** Bytes of the frame whose payload has {@code length} bytes. */
  public static int frameBytes(int length) {
    return HEADER_BYTES + length + TAG_BYTES;
  }

  /**
   * A new frame of {@code payload[off, off + len)}, tagged by {@code mac} (the next frame of its
   * direction).
   */
  public static byte[] encode(int id, int code, byte[] payload, int off, int len, FrameMac mac) {
    byte[] f = new byte[frameBytes(len)];
    putInt(f, ID_OFFSET, id);
    putInt(f, CODE_OFFSET, code);
    putInt(f, LENGTH_OFFSET, len);
    System.arraycopy(payload, off, f, HEADER_BYTES, len);
    mac.sign(f, 0, HEADER_BYTES + len, f, HEADER_BYTES + len);
    return f;
  }

  /**
   * The header at {@code src[0, 12)}.
   *
   * @param maxLength the largest payload the reader accepts
   * @param maxCode the largest service or status the reader accepts
   */
  public static Header decodeHeader(byte[] src, int maxLength, int maxCode) {
    if (src.length < HEADER_BYTES) {
      throw new IllegalArgumentException(
          "header length=" + src.length + ": must be " + HEADER_BYTES);
    }
    int code = getInt(src, CODE_OFFSET);
    if (code < 0 || code > maxCode) {
      throw new IllegalArgumentException("service or status=" + code + ": must be 0.." + maxCode);
    }
    int length = getInt(src, LENGTH_OFFSET);
    if (length < 0 || length > maxLength) {
      throw new IllegalArgumentException("length=" + length + ": must be 0.." + maxLength);
    }
    return new Header(getInt(src, ID_OFFSET), code, length);
  }

  /**
   * Whether the frame's tag in {@code frame} (header, payload, tag) is the next one of {@code mac}.
   */
  public static boolean verify(byte[] frame, int length, FrameMac mac) {
    return mac.verify(frame, 0, HEADER_BYTES + length, frame, HEADER_BYTES + length);
  }

  static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  static int getInt(byte[] b, int at) {
    return (b[at] & 0xff) << 24
        | (b[at + 1] & 0xff) << 16
        | (b[at + 2] & 0xff) << 8
        | (b[at + 3] & 0xff);
  }
}
