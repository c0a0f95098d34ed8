/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import java.nio.ByteBuffer;

/**
 * Byte layout of the authentication handshake (big-endian, version 3), run on every connection
 * before it serves anything. Both sides prove the application secret by HMAC-SHA256 over fresh
 * nonces and the purpose; the secret never crosses the wire. The client proves first: the server's
 * CHALLENGE is its nonce only, and it proves itself in the RESULT, to a client that proved the
 * secret. So a host that knows nothing gets nothing computed with the secret to search it offline
 * (version 2's CHALLENGE carried the server's proof: one such oracle per HELLO, for any host).
 *
 * <pre>
 * HELLO, client to server (42 + n bytes):
 *  0       4       6       7       8       10                             42
 *  +-------+-------+-------+-------+-------+------------------------------+-------------------+
 *  | magic |version|purpose|reservd|app len|      client nonce (32)       | application (n)   |
 *  +-------+-------+-------+-------+-------+------------------------------+-------------------+
 *
 * CHALLENGE, server to client (40 bytes):
 *  0       4       8                              40
 *  +-------+-------+------------------------------+
 *  | magic |status |      server nonce (32)       |
 *  +-------+-------+------------------------------+
 *
 * PROOF, client to server (32 bytes):     RESULT, server to client (36 bytes):
 *  0                              32       0       4                              36
 *  +------------------------------+        +-------+------------------------------+
 *  |      client proof (32)       |        |status |  server proof (32), or zeros  |
 *  +------------------------------+        +-------+------------------------------+
 * </pre>
 *
 * client proof = HMAC(secret, "rdma-shuffle client" | server nonce | client nonce | purpose |
 * application); server proof = HMAC(secret, "rdma-shuffle server" | client nonce | server nonce |
 * purpose | application), sent with status OK or BUSY only (zeros otherwise). The first 8 bytes of
 * HELLO and of CHALLENGE are laid out as in versions 1 and 2, and a HELLO of another version gets a
 * {@value #LEGACY_CHALLENGE_BYTES}-byte CHALLENGE with status BAD_VERSION (versions 1 and 2 read
 * that many), so an older or newer peer learns the version mismatch instead of hanging.
 */
public final class HandshakeLayout {
  public static final int MAGIC = 0x52445348; // "RDSH"
  public static final short VERSION = 3;
  public static final int NONCE_BYTES = 32;
  public static final int PROOF_BYTES = 32;
  public static final int MAX_APPLICATION_BYTES = 1024;

  public static final int HELLO_MAGIC_OFFSET = 0;
  public static final int HELLO_VERSION_OFFSET = HELLO_MAGIC_OFFSET + 4;
  public static final int HELLO_PURPOSE_OFFSET = HELLO_VERSION_OFFSET + 2;
  public static final int HELLO_RESERVED_OFFSET = HELLO_PURPOSE_OFFSET + 1;
  public static final int HELLO_APP_LENGTH_OFFSET = HELLO_RESERVED_OFFSET + 1;

  /**
   * What a server reads first (magic, version, purpose, reserved), so that another version is
   * refused before the rest: every version's HELLO is longer than this.
   */
  public static final int HELLO_HEAD_BYTES = HELLO_APP_LENGTH_OFFSET;

  public static final int HELLO_NONCE_OFFSET = HELLO_APP_LENGTH_OFFSET + 2;
  public static final int HELLO_FIXED_BYTES = HELLO_NONCE_OFFSET + NONCE_BYTES;

  public static final int CHALLENGE_MAGIC_OFFSET = 0;
  public static final int CHALLENGE_STATUS_OFFSET = CHALLENGE_MAGIC_OFFSET + 4;
  public static final int CHALLENGE_NONCE_OFFSET = CHALLENGE_STATUS_OFFSET + 4;
  public static final int CHALLENGE_BYTES = CHALLENGE_NONCE_OFFSET + NONCE_BYTES;

  /** The CHALLENGE length of versions 1 and 2: a version refusal is padded to it. */
  public static final int LEGACY_CHALLENGE_BYTES = 72;

  public static final int PROOF_MESSAGE_BYTES = PROOF_BYTES;
  public static final int RESULT_STATUS_OFFSET = 0;
  public static final int RESULT_PROOF_OFFSET = RESULT_STATUS_OFFSET + 4;
  public static final int RESULT_BYTES = RESULT_PROOF_OFFSET + PROOF_BYTES;

  /** The challenge or result carries on; anything else ends the handshake. */
  public static final int STATUS_OK = 0;

  /**
   * The client's proof failed (wrong secret or unknown application: deliberately not told apart).
   */
  public static final int STATUS_REFUSED = 1;

  public static final int STATUS_BAD_VERSION = 2;
  public static final int STATUS_UNKNOWN_PURPOSE = 3;

  /** Proven, but a connection bound of the server is reached: retry later. */
  public static final int STATUS_BUSY = 4;

  /** The client nonce was seen in an earlier handshake. */
  public static final int STATUS_REPLAYED = 5;

  /** The client nonce is one the server issued: a reflected handshake. */
  public static final int STATUS_REFLECTED = 6;

  private static final int MAX_STATUS = STATUS_REFLECTED;

  private HandshakeLayout() {}

  /** The fixed part of a HELLO. */
  public record Hello(int version, int purpose, int applicationLength, byte[] nonce) {}

  /** A CHALLENGE. */
  public record Challenge(int status, byte[] nonce) {}

  public static ByteBuffer encodeHello(int purpose, byte[] nonce, byte[] application) {
    if (application.length == 0 || application.length > MAX_APPLICATION_BYTES) {
      throw new IllegalArgumentException(
          "application length=" + application.length + ": must be 1.." + MAX_APPLICATION_BYTES);
    }
    ByteBuffer b = ByteBuffer.allocate(HELLO_FIXED_BYTES + application.length);
    b.putInt(HELLO_MAGIC_OFFSET, MAGIC)
        .putShort(HELLO_VERSION_OFFSET, VERSION)
        .put(HELLO_PURPOSE_OFFSET, (byte) purpose)
        .put(HELLO_RESERVED_OFFSET, (byte) 0)
        .putShort(HELLO_APP_LENGTH_OFFSET, (short) application.length)
        .put(HELLO_NONCE_OFFSET, nonce)
        .put(HELLO_FIXED_BYTES, application);
    return b;
  }

  /** The version of a HELLO from its first {@link #HELLO_HEAD_BYTES} bytes (at index 0). */
  public static int decodeHelloVersion(ByteBuffer head) {
    need(head, HELLO_HEAD_BYTES, "HELLO head");
    int magic = head.getInt(HELLO_MAGIC_OFFSET);
    if (magic != MAGIC) {
      throw new IllegalArgumentException(
          "magic=0x" + Integer.toHexString(magic) + ": not an rdma-shuffle handshake");
    }
    return head.getShort(HELLO_VERSION_OFFSET) & 0xffff;
  }

  /**
   * The fixed part of a HELLO (at index 0); the purpose is returned as sent, checked by the caller.
   */
  public static Hello decodeHello(ByteBuffer fixed) {
    int version = decodeHelloVersion(fixed);
    need(fixed, HELLO_FIXED_BYTES, "HELLO");
    int reserved = fixed.get(HELLO_RESERVED_OFFSET);
    if (reserved != 0) {
      throw new IllegalArgumentException("reserved=" + reserved + ": must be 0");
    }
    int appLength = fixed.getShort(HELLO_APP_LENGTH_OFFSET) & 0xffff;
    if (appLength == 0 || appLength > MAX_APPLICATION_BYTES) {
      throw new IllegalArgumentException(
          "application length=" + appLength + ": must be 1.." + MAX_APPLICATION_BYTES);
    }
    byte[] nonce = new byte[NONCE_BYTES];
    fixed.get(HELLO_NONCE_OFFSET, nonce);
    return new Hello(version, fixed.get(HELLO_PURPOSE_OFFSET) & 0xff, appLength, nonce);
  }

  public static ByteBuffer encodeChallenge(int status, byte[] nonce) {
    ByteBuffer b = ByteBuffer.allocate(CHALLENGE_BYTES);
    b.putInt(CHALLENGE_MAGIC_OFFSET, MAGIC)
        .putInt(CHALLENGE_STATUS_OFFSET, status)
        .put(CHALLENGE_NONCE_OFFSET, nonce);
    return b;
  }

  /** The answer to a HELLO of another version, as long as versions 1 and 2 read a CHALLENGE. */
  public static ByteBuffer encodeVersionRefusal() {
    return ByteBuffer.allocate(LEGACY_CHALLENGE_BYTES)
        .putInt(CHALLENGE_MAGIC_OFFSET, MAGIC)
        .putInt(CHALLENGE_STATUS_OFFSET, STATUS_BAD_VERSION);
  }

  public static Challenge decodeChallenge(ByteBuffer b) {
    need(b, CHALLENGE_BYTES, "CHALLENGE");
    int magic = b.getInt(CHALLENGE_MAGIC_OFFSET);
    if (magic != MAGIC) {
      throw new IllegalArgumentException(
          "magic=0x" + Integer.toHexString(magic) + ": not an rdma-shuffle handshake");
    }
    int status = status(b.getInt(CHALLENGE_STATUS_OFFSET));
    byte[] nonce = new byte[NONCE_BYTES];
    b.get(CHALLENGE_NONCE_OFFSET, nonce);
    return new Challenge(status, nonce);
  }

  /** A RESULT; {@code proof} is the server's (OK, BUSY) or zeros. */
  public static ByteBuffer encodeResult(int status, byte[] proof) {
    return ByteBuffer.allocate(RESULT_BYTES)
        .putInt(RESULT_STATUS_OFFSET, status)
        .put(RESULT_PROOF_OFFSET, proof);
  }

  /** A RESULT that proves nothing (a refusal). */
  public static ByteBuffer encodeResult(int status) {
    return encodeResult(status, new byte[PROOF_BYTES]);
  }

  public static int decodeResult(ByteBuffer b) {
    need(b, RESULT_BYTES, "RESULT");
    return status(b.getInt(RESULT_STATUS_OFFSET));
  }

  /** The server proof of a RESULT. */
  public static byte[] decodeResultProof(ByteBuffer b) {
    need(b, RESULT_BYTES, "RESULT");
    byte[] proof = new byte[PROOF_BYTES];
    b.get(RESULT_PROOF_OFFSET, proof);
    return proof;
  }

  private static int status(int status) {
    if (status < 0 || status > MAX_STATUS) {
      throw new IllegalArgumentException("status=" + status + ": must be 0.." + MAX_STATUS);
    }
    return status;
  }

  private static void need(ByteBuffer b, int bytes, String what) {
    if (b.limit() < bytes) {
      throw new IllegalArgumentException(
          what + " length=" + b.limit() + ": must be at least " + bytes);
    }
  }
}
