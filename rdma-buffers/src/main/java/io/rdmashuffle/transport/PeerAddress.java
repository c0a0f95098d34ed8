/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Where a process's READ responder listens. Its byte layout, as published with map outputs
 * (big-endian, starting at a buffer's position; the host's UTF-8 bytes make its length vary):
 *
 * <pre>
 *  0               2                                      2 + n           4 + n
 *  +---------------+--------------------------------------+---------------+
 *  | host length n |        host (UTF-8, n bytes)         |     port      |
 *  +---------------+--------------------------------------+---------------+
 * </pre>
 */
public record PeerAddress(String host, int port) {
  public static final int MAX_HOST_BYTES = 255;
  public static final int HOST_LENGTH_OFFSET = 0;
  public static final int HOST_OFFSET = HOST_LENGTH_OFFSET + Short.BYTES;

  /** The port follows the host's bytes: at {@code HOST_OFFSET + n}. */
  public static final int PORT_BYTES = Short.BYTES;

  public PeerAddress {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("host=" + host + ": must not be empty");
    }
    if (host.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_BYTES) {
      throw new IllegalArgumentException("host=" + host + ": longer than 255 bytes");
    }
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port=" + port + ": must be in 1 .. 65535");
    }
  }

  public InetSocketAddress socketAddress() {
    return new InetSocketAddress(host, port);
  }

  public int encodedLength() {
    return HOST_OFFSET + host.getBytes(StandardCharsets.UTF_8).length + PORT_BYTES;
  }

  /** Writes this address at {@code dst}'s position and moves it past the address. */
  public void writeTo(ByteBuffer dst) {
    byte[] h = host.getBytes(StandardCharsets.UTF_8);
    int at = dst.position();
    dst.putShort(at + HOST_LENGTH_OFFSET, (short) h.length);
    dst.put(at + HOST_OFFSET, h);
    dst.putShort(at + HOST_OFFSET + h.length, (short) port);
    dst.position(at + HOST_OFFSET + h.length + PORT_BYTES);
  }

  /**
   * Reads an address written by {@link #writeTo} at {@code src}'s position and moves it past the
   * address.
   *
   * @throws IllegalArgumentException naming the field and value when the bytes are no address
   */
  public static PeerAddress readFrom(ByteBuffer src) {
    int at = src.position();
    if (src.remaining() < HOST_OFFSET) {
      throw new IllegalArgumentException(
          "peer address remaining=" + src.remaining() + ": shorter than its host length");
    }
    int n = src.getShort(at + HOST_LENGTH_OFFSET) & 0xffff;
    if (n == 0 || n > MAX_HOST_BYTES) {
      throw new IllegalArgumentException(
          "peer address host length=" + n + ": must be in 1 .. " + MAX_HOST_BYTES);
    }
    if (src.remaining() < HOST_OFFSET + n + PORT_BYTES) {
      throw new IllegalArgumentException(
          "peer address host length="
              + n
              + ": needs "
              + (HOST_OFFSET + n + PORT_BYTES)
              + " bytes, remaining="
              + src.remaining());
    }
    String host = utf8(src.slice(at + HOST_OFFSET, n));
    int port = src.getShort(at + HOST_OFFSET + n) & 0xffff;
    PeerAddress a = new PeerAddress(host, port);
    src.position(at + HOST_OFFSET + n + PORT_BYTES);
    return a;
  }

  /** Strict UTF-8: a host that would not encode back to the same bytes is refused. */
  private static String utf8(ByteBuffer bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(bytes)
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "peer address host=" + HexFormat.of().formatHex(toArray(bytes.rewind())) + ": not UTF-8",
          e);
    }
  }

  private static byte[] toArray(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
