package io.rdmashuffle.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Where a process's READ responder listens. Its byte layout, as published with map outputs:
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
    return 4 + host.getBytes(StandardCharsets.UTF_8).length;
  }

  public void writeTo(ByteBuffer dst) {
    byte[] h = host.getBytes(StandardCharsets.UTF_8);
    dst.putShort((short) h.length).put(h).putShort((short) port);
  }

  /** Reads an address written by {@link #writeTo} at {@code src}'s position. */
  public static PeerAddress readFrom(ByteBuffer src) {
    if (src.remaining() < 2) {
      throw new IllegalArgumentException("peer address: truncated");
    }
    int n = src.getShort() & 0xffff;
    if (n == 0 || n > MAX_HOST_BYTES || src.remaining() < n + 2) {
      throw new IllegalArgumentException("peer address host length=" + n + ": invalid");
    }
    byte[] h = new byte[n];
    src.get(h);
    return new PeerAddress(new String(h, StandardCharsets.UTF_8), src.getShort() & 0xffff);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
