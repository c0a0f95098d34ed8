/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * Byte layout (big-endian) of the verbs transport's connect announcement: the request and answer of
 * call service {@link io.rdmashuffle.transport.CallServices#VERBS_ANNOUNCE}, made on an
 * authenticated CALL connection before the RDMA-CM connect.
 *
 * <pre>
 * ANNOUNCEMENT, reader to responder (7 or 19 bytes):
 *  0       1       3                   3 + n
 *  +-------+-------+-------------------+
 *  |   n   | port  | address (n bytes) |    n = 4 (IPv4) or 16 (IPv6)
 *  +-------+-------+-------------------+
 *
 * ANSWER, responder to reader (4 bytes):
 *  0       2       4
 *  +-------+-------+
 *  |cm port|reservd|    the responder's RDMA-CM listening port
 *  +-------+-------+
 * </pre>
 *
 * The address and port are those of the reader's RDMA-CM id after address resolution; the address
 * must be the one the CALL connection comes from. The responder then accepts one RDMA-CM connect
 * from that address and port, for the application the CALL connection proved, and creates its queue
 * pair in that application's protection domain: no queue pair ever serves a peer that has not
 * proved the secret.
 */
public final class ConnectLayout {
  public static final int LENGTH_OFFSET = 0;
  public static final int PORT_OFFSET = LENGTH_OFFSET + 1;
  public static final int ADDRESS_OFFSET = PORT_OFFSET + 2;
  public static final int MAX_ANNOUNCEMENT_BYTES = ADDRESS_OFFSET + 16;

  public static final int ANSWER_PORT_OFFSET = 0;
  public static final int ANSWER_RESERVED_OFFSET = ANSWER_PORT_OFFSET + 2;
  public static final int ANSWER_BYTES = ANSWER_RESERVED_OFFSET + 2;

  private ConnectLayout() {}

  public static ByteBuffer encodeAnnouncement(InetSocketAddress source) {
    byte[] a = source.getAddress().getAddress();
    ByteBuffer b = ByteBuffer.allocate(ADDRESS_OFFSET + a.length);
    b.put(LENGTH_OFFSET, (byte) a.length);
    b.putShort(PORT_OFFSET, (short) source.getPort());
    b.put(ADDRESS_OFFSET, a);
    return b;
  }

  /** The announced RDMA-CM source, from {@code b[position, limit)}. */
  public static InetSocketAddress decodeAnnouncement(ByteBuffer b) {
    ByteBuffer m = b.slice();
    if (m.limit() < ADDRESS_OFFSET) {
      throw new IllegalArgumentException(
          "announcement length="
              + m.limit()
              + ": must be "
              + (ADDRESS_OFFSET + 4)
              + " or "
              + (ADDRESS_OFFSET + 16));
    }
    int n = m.get(LENGTH_OFFSET) & 0xff;
    if (n != 4 && n != 16) {
      throw new IllegalArgumentException("address length=" + n + ": must be 4 or 16");
    }
    if (m.limit() != ADDRESS_OFFSET + n) {
      throw new IllegalArgumentException(
          "announcement length="
              + m.limit()
              + ": must be "
              + (ADDRESS_OFFSET + n)
              + " for address length="
              + n);
    }
    int port = m.getShort(PORT_OFFSET) & 0xffff;
    if (port == 0) {
      throw new IllegalArgumentException("port=0: not a resolved RDMA-CM id");
    }
    byte[] a = new byte[n];
    m.get(ADDRESS_OFFSET, a);
    try {
      return new InetSocketAddress(InetAddress.getByAddress(a), port);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("address of " + n + " bytes: invalid", e);
    }
  }

  public static ByteBuffer encodeAnswer(int cmPort) {
    if (cmPort <= 0 || cmPort > 65535) {
      throw new IllegalArgumentException("cm port=" + cmPort + ": must be 1..65535");
    }
    return ByteBuffer.allocate(ANSWER_BYTES).putShort(ANSWER_PORT_OFFSET, (short) cmPort);
  }

  /** The responder's RDMA-CM port, from {@code b[position, limit)}. */
  public static int decodeAnswer(ByteBuffer b) {
    ByteBuffer m = b.slice();
    if (m.limit() != ANSWER_BYTES) {
      throw new IllegalArgumentException(
          "answer length=" + m.limit() + ": must be " + ANSWER_BYTES);
    }
    int reserved = m.getShort(ANSWER_RESERVED_OFFSET);
    if (reserved != 0) {
      throw new IllegalArgumentException("reserved=" + reserved + ": must be 0");
    }
    int port = m.getShort(ANSWER_PORT_OFFSET) & 0xffff;
    if (port == 0) {
      throw new IllegalArgumentException("cm port=0: must be 1..65535");
    }
    return port;
  }
}
