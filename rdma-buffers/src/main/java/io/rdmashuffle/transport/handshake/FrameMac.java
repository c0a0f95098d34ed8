/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Authenticates the frames of one direction of one connection: tag = the first {@value #TAG_BYTES}
 * bytes of HMAC-SHA256(direction key, sequence number | frame), where the sequence number (8 bytes,
 * big-endian) counts the frames of that direction from 0 and never crosses the wire. A frame
 * injected, replayed, reordered, reflected from the other direction or altered fails its check. The
 * keys come from the handshake's session key ({@link Handshake.Result}).
 *
 * <p>HMAC (RFC 2104) is computed here over one reused {@link MessageDigest}, because {@code
 * javax.crypto.Mac} allocates on every tag and this runs for every READ request; a test checks it
 * against {@code Mac}. Not thread-safe: one instance per direction, used by the one thread that
 * writes (or reads) that direction at a time.
 */
public final class FrameMac {
  public static final int TAG_BYTES = 16;
  private static final int BLOCK = 64;
  private static final int DIGEST = 32;

  private final MessageDigest sha;
  private final byte[] ipad = new byte[BLOCK];
  private final byte[] opad = new byte[BLOCK];
  private final byte[] counter = new byte[8];
  private final byte[] inner = new byte[DIGEST];
  private final byte[] outer = new byte[DIGEST];
  private long sequence;

  public FrameMac(byte[] key) {
    this.sha = sha256();
    byte[] k = key.length > BLOCK ? sha.digest(key) : key;
    for (int i = 0; i < BLOCK; i++) {
      byte b = i < k.length ? k[i] : 0;
      ipad[i] = (byte) (b ^ 0x36);
      opad[i] = (byte) (b ^ 0x5c);
    }
  }

  /** Tags the next frame, {@code frame[off, off + len)}, into {@code tag[tagOff, +16)}. */
  public void sign(byte[] frame, int off, int len, byte[] tag, int tagOff) {
    compute(frame, off, len);
    System.arraycopy(outer, 0, tag, tagOff, TAG_BYTES);
  }

  /**
   * Whether {@code tag} is the next frame's tag; the frame's sequence number is used up either way.
   */
  public boolean verify(byte[] frame, int off, int len, byte[] tag, int tagOff) {
    compute(frame, off, len);
    int diff = 0;
    for (int i = 0; i < TAG_BYTES; i++) {
      diff |= outer[i] ^ tag[tagOff + i];
    }
    return diff == 0;
  }

  /** Frames tagged or checked so far. */
  public long sequence() {
    return sequence;
  }

  private void compute(byte[] frame, int off, int len) {
    long s = sequence++;
    for (int i = 0; i < 8; i++) {
      counter[i] = (byte) (s >>> (56 - 8 * i));
    }
    try {
      sha.update(ipad);
      sha.update(counter);
      sha.update(frame, off, len);
      sha.digest(inner, 0, DIGEST);
      sha.update(opad);
      sha.update(inner);
      sha.digest(outer, 0, DIGEST);
    } catch (DigestException e) {
      throw new IllegalStateException("SHA-256 output of 32 bytes did not fit 32 bytes", e);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
