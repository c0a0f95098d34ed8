/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.handshake.FrameMac;
import java.nio.ByteBuffer;

/**
 * Byte layout (big-endian) of the tcp transport's READ protocol, after the handshake.
 *
 * <pre>
 * READ request, reader to responder (40 bytes):
 *  0       4       8       12      16              24                              40
 *  +-------+-------+-------+-------+---------------+-------------------------------+
 *  |  id   | rkey  |length |reservd|remote address |           tag (16)            |
 *  +-------+-------+-------+-------+---------------+-------------------------------+
 *
 * READ response, responder to reader (12 bytes, then length bytes of data when status is OK):
 *  0               4               8               12
 *  +---------------+---------------+---------------+------------------------------
 *  |      id       |    status     |    length     |  data (status OK only) ...
 *  +---------------+---------------+---------------+------------------------------
 * </pre>
 *
 * The tag is the reader's {@link FrameMac} (client to server) over the request's first 24 bytes:
 * the responder serves only requests the authenticated reader sent, once each, in order. Responses
 * are not tagged (their data is not authenticated either: see the README's security section).
 * Responses come in request order. The id is the reader's slot number; the responder echoes it and
 * never interprets it.
 */
final class TcpFrameLayout {
  static final int REQUEST_ID_OFFSET = 0;
  static final int REQUEST_RKEY_OFFSET = REQUEST_ID_OFFSET + 4;
  static final int REQUEST_LENGTH_OFFSET = REQUEST_RKEY_OFFSET + 4;
  static final int REQUEST_RESERVED_OFFSET = REQUEST_LENGTH_OFFSET + 4;
  static final int REQUEST_ADDRESS_OFFSET = REQUEST_RESERVED_OFFSET + 4;

  /** The tagged part of a request. */
  static final int REQUEST_BODY_BYTES = REQUEST_ADDRESS_OFFSET + 8;

  static final int REQUEST_TAG_OFFSET = REQUEST_BODY_BYTES;
  static final int REQUEST_BYTES = REQUEST_TAG_OFFSET + FrameMac.TAG_BYTES;

  static final int RESPONSE_ID_OFFSET = 0;
  static final int RESPONSE_STATUS_OFFSET = RESPONSE_ID_OFFSET + 4;
  static final int RESPONSE_LENGTH_OFFSET = RESPONSE_STATUS_OFFSET + 4;
  static final int RESPONSE_HEADER_BYTES = RESPONSE_LENGTH_OFFSET + 4;

  static final int STATUS_OK = 0;
  static final int STATUS_BAD_RKEY = 1;
  static final int STATUS_OUT_OF_BOUNDS = 2;
  static final int STATUS_DEREGISTERED = 3;
  static final int STATUS_NOT_PERMITTED = 4;
  private static final int MAX_STATUS = STATUS_NOT_PERMITTED;

  private TcpFrameLayout() {}

  /** A decoded request; reused (decoding allocates nothing). */
  static final class Request {
    int id;
    int rkey;
    int length;
    long address;
  }

  /** A decoded response header; reused. */
  static final class ResponseHeader {
    int id;
    int status;
    int length;
  }

  /** Writes a request's body at {@code dst[off, off + 24)}; the caller tags it. */
  static void encodeRequest(byte[] dst, int off, int id, int rkey, int length, long address) {
    putInt(dst, off + REQUEST_ID_OFFSET, id);
    putInt(dst, off + REQUEST_RKEY_OFFSET, rkey);
    putInt(dst, off + REQUEST_LENGTH_OFFSET, length);
    putInt(dst, off + REQUEST_RESERVED_OFFSET, 0);
    putInt(dst, off + REQUEST_ADDRESS_OFFSET, (int) (address >>> 32));
    putInt(dst, off + REQUEST_ADDRESS_OFFSET + 4, (int) address);
  }

  /** Encodes and tags a whole request frame at {@code dst[off, off + 40)}. */
  static void encodeRequest(
      byte[] dst, int off, int id, int rkey, int length, long address, FrameMac mac) {
    encodeRequest(dst, off, id, rkey, length, address);
    mac.sign(dst, off, REQUEST_BODY_BYTES, dst, off + REQUEST_TAG_OFFSET);
  }

  /**
   * Decodes the request at {@code src[off, off + 40)} (its tag checked by the caller). Lengths and
   * addresses are not judged here: the responder answers those it can't serve with a status.
   */
  static void decodeRequest(byte[] src, int off, Request into) {
    if (off < 0 || src.length - off < REQUEST_BYTES) {
      throw new IllegalArgumentException(
          "request length=" + (src.length - off) + ": must be at least " + REQUEST_BYTES);
    }
    int reserved = getInt(src, off + REQUEST_RESERVED_OFFSET);
    if (reserved != 0) {
      throw new IllegalArgumentException("reserved=" + reserved + ": must be 0");
    }
    into.id = getInt(src, off + REQUEST_ID_OFFSET);
    into.rkey = getInt(src, off + REQUEST_RKEY_OFFSET);
    into.length = getInt(src, off + REQUEST_LENGTH_OFFSET);
    into.address =
        (long) getInt(src, off + REQUEST_ADDRESS_OFFSET) << 32
            | getInt(src, off + REQUEST_ADDRESS_OFFSET + 4) & 0xffffffffL;
  }

  static void encodeResponseHeader(ByteBuffer dst, int at, int id, int status, int length) {
    dst.putInt(at + RESPONSE_ID_OFFSET, id);
    dst.putInt(at + RESPONSE_STATUS_OFFSET, status);
    dst.putInt(at + RESPONSE_LENGTH_OFFSET, length);
  }

  /** Decodes the response header at {@code src[at, at + 12)}. */
  static void decodeResponseHeader(ByteBuffer src, int at, ResponseHeader into) {
    if (at < 0 || src.limit() - at < RESPONSE_HEADER_BYTES) {
      throw new IllegalArgumentException(
          "response header length="
              + (src.limit() - at)
              + ": must be at least "
              + RESPONSE_HEADER_BYTES);
    }
    int status = src.getInt(at + RESPONSE_STATUS_OFFSET);
    if (status < 0 || status > MAX_STATUS) {
      throw new IllegalArgumentException("status=" + status + ": must be 0.." + MAX_STATUS);
    }
    int length = src.getInt(at + RESPONSE_LENGTH_OFFSET);
    if (length < 0 || (status != STATUS_OK && length != 0)) {
      throw new IllegalArgumentException(
          "length="
              + length
              + ": must be "
              + (status == STATUS_OK ? "at least 0" : "0 with status=" + status));
    }
    into.id = src.getInt(at + RESPONSE_ID_OFFSET);
    into.status = status;
    into.length = length;
  }

  static RemoteAccessException.Reason reasonOf(int status) {
    return switch (status) {
      case STATUS_BAD_RKEY -> RemoteAccessException.Reason.BAD_RKEY;
      case STATUS_OUT_OF_BOUNDS -> RemoteAccessException.Reason.OUT_OF_BOUNDS;
      case STATUS_DEREGISTERED -> RemoteAccessException.Reason.DEREGISTERED;
      case STATUS_NOT_PERMITTED -> RemoteAccessException.Reason.NOT_PERMITTED;
      default -> throw new IllegalArgumentException("status=" + status + ": not a refusal");
    };
  }

  private static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  private static int getInt(byte[] b, int at) {
    return (b[at] & 0xff) << 24
        | (b[at + 1] & 0xff) << 16
        | (b[at + 2] & 0xff) << 8
        | (b[at + 3] & 0xff);
  }
}
