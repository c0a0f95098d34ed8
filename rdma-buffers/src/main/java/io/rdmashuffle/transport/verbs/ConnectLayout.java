package io.rdmashuffle.transport.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * Byte layout (big-endian) of the verbs transport's connect announcement, sent on the TCP
 * control connection after the authentication handshake ({@link
 * io.rdmashuffle.transport.HandshakeLayout}) and before the RDMA-CM connect:
 *
 * <pre>
 * EXPECT, reader to responder:
 *  0       1       3                   3 + n
 *  +-------+-------+-------------------+
 *  |   n   | port  | address (n bytes) |    n = 4 (IPv4) or 16 (IPv6)
 *  +-------+-------+-------------------+
 *
 * ACCEPTED, responder to reader:
 *  0               4
 *  +---------------+
 *  |    status     |    0: the responder accepts one RDMA-CM connect from that address
 *  +---------------+       and port, for the application the handshake proved
 * </pre>
 *
 * The address and port are those of the reader's RDMA-CM id after address resolution; the
 * responder creates a queue pair (in the protection domain of the proved application) only for a
 * connect request whose source matches an announcement, so no queue pair ever serves a peer that
 * has not proved the secret.
 */
public final class ConnectLayout {
  public static final int LENGTH_OFFSET = 0;
  public static final int PORT_OFFSET = 1;
  public static final int ADDRESS_OFFSET = 3;
  public static final int MAX_EXPECT_BYTES = ADDRESS_OFFSET + 16;
  public static final int ACCEPTED_BYTES = 4;
  public static final int STATUS_ACCEPTED = 0;

  private ConnectLayout() {}

  public static ByteBuffer expect(InetSocketAddress source) {
    byte[] a = source.getAddress().getAddress();
    ByteBuffer b = ByteBuffer.allocate(ADDRESS_OFFSET + a.length);
    b.put(LENGTH_OFFSET, (byte) a.length);
    b.putShort(PORT_OFFSET, (short) source.getPort());
    b.put(ADDRESS_OFFSET, a);
    return b;
  }

  /** Bytes of the EXPECT message whose first byte is {@code first}. */
  public static int expectLength(byte first) {
    int n = first & 0xff;
    if (n != 4 && n != 16) {
      throw new IllegalArgumentException("address length=" + n + ": must be 4 or 16");
    }
    return ADDRESS_OFFSET + n;
  }

  public static InetSocketAddress readExpect(ByteBuffer b) {
    int n = expectLength(b.get(LENGTH_OFFSET));
    if (b.limit() < n) {
      throw new IllegalArgumentException("EXPECT of " + b.limit() + " bytes: needs " + n);
    }
    byte[] a = new byte[n - ADDRESS_OFFSET];
    b.get(ADDRESS_OFFSET, a);
    int port = b.getShort(PORT_OFFSET) & 0xffff;
    if (port == 0) {
      throw new IllegalArgumentException("port=0: not a resolved RDMA-CM id");
    }
    try {
      return new InetSocketAddress(InetAddress.getByAddress(a), port);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("address of " + a.length + " bytes: invalid", e);
    }
  }
}
