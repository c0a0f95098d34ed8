/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.DecoderFuzz;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class PeerAddressFuzzTest {
  private static byte[] encode(PeerAddress a) {
    ByteBuffer b = ByteBuffer.allocate(a.encodedLength());
    a.writeTo(b);
    assertFalse(b.hasRemaining(), "encodedLength() matches what writeTo writes");
    return b.array();
  }

  @Test
  void peerAddressDecodingRejectsEveryMutationByName() {
    List<byte[]> valid =
        List.of(
            encode(new PeerAddress("127.0.0.1", 1)),
            encode(new PeerAddress("h", 65535)),
            encode(new PeerAddress("x".repeat(255), 7337)),
            encode(new PeerAddress("n\u00f6de-\u00e9t\u00e9.example", 4040)));
    DecoderFuzz.Result r =
        DecoderFuzz.check(valid, b -> PeerAddress.readFrom(ByteBuffer.wrap(b)), 21, 5_000);
    assertTrue(r.rejected() > 0 && r.accepted() > 0, r.toString());
  }

  @Test
  void aDecodedAddressLeavesTheBufferAfterItsLastByte() {
    ByteBuffer b = ByteBuffer.allocate(64);
    new PeerAddress("host-a", 99).writeTo(b);
    b.putInt(12345).flip();
    assertEquals(new PeerAddress("host-a", 99), PeerAddress.readFrom(b));
    assertEquals(12345, b.getInt());
  }
}
