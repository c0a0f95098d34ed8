/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.HandshakeLayout;
import io.rdmashuffle.transport.server.CallFrameLayout;
import io.rdmashuffle.transport.verbs.ConnectLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every decoder of a wire layout of the connection server and its transports, fed random bytes
 * (fixed seed, bounded count): it returns a value or throws {@link IllegalArgumentException} naming
 * the field and its value, never anything else. Encoders round-trip.
 */
@Timeout(120)
class WireLayoutFuzzTest {
  private static final int ROUNDS = 20_000;

  /** "field=value" somewhere in the message. */
  private static final Pattern NAMES_A_FIELD = Pattern.compile("[a-zA-Z ]+=-?[0-9a-fx]+");

  private static void fuzz(String layout, int maxLength, Consumer<byte[]> decode) {
    Random random = new Random(layout.hashCode());
    int refused = 0;
    for (int i = 0; i < ROUNDS; i++) {
      byte[] b = new byte[random.nextInt(maxLength + 1)];
      random.nextBytes(b);
      if (i % 4 == 0 && b.length >= 8) {
        // keep the leading fields plausible, so the later fields' checks are reached too
        ByteBuffer.wrap(b).putInt(0, HandshakeLayout.MAGIC);
      }
      try {
        decode.accept(b);
      } catch (IllegalArgumentException e) {
        refused++;
        assertTrue(
            NAMES_A_FIELD.matcher(e.getMessage()).find(),
            layout + ": the refusal does not name a field and its value: " + e.getMessage());
      } catch (RuntimeException e) {
        fail(layout + " threw " + e + " for " + java.util.HexFormat.of().formatHex(b));
      }
    }
    assertTrue(refused > 0, layout + ": random bytes were never refused");
  }

  @Test
  void handshakeDecodersRefuseOnlyWithANamedField() {
    fuzz("HELLO head", 12, b -> HandshakeLayout.decodeHelloVersion(ByteBuffer.wrap(b)));
    fuzz("HELLO", 50, b -> HandshakeLayout.decodeHello(ByteBuffer.wrap(b)));
    fuzz("CHALLENGE", 80, b -> HandshakeLayout.decodeChallenge(ByteBuffer.wrap(b)));
    fuzz("RESULT", 6, b -> HandshakeLayout.decodeResult(ByteBuffer.wrap(b)));
  }

  @Test
  void readFrameDecodersRefuseOnlyWithANamedField() {
    TcpFrameLayout.Request request = new TcpFrameLayout.Request();
    TcpFrameLayout.ResponseHeader header = new TcpFrameLayout.ResponseHeader();
    fuzz("READ request", 48, b -> TcpFrameLayout.decodeRequest(b, 0, request));
    fuzz(
        "READ response header",
        16,
        b -> TcpFrameLayout.decodeResponseHeader(ByteBuffer.wrap(b), 0, header));
  }

  @Test
  void callAndAnnouncementDecodersRefuseOnlyWithANamedField() {
    fuzz("CALL header", 16, b -> CallFrameLayout.decodeHeader(b, 1 << 16, 0xffff));
    fuzz("announcement", 24, b -> ConnectLayout.decodeAnnouncement(ByteBuffer.wrap(b)));
    fuzz("announcement answer", 6, b -> ConnectLayout.decodeAnswer(ByteBuffer.wrap(b)));
  }

  @Test
  void encodersRoundTrip() throws Exception {
    byte[] nonce = new byte[HandshakeLayout.NONCE_BYTES];
    new Random(5).nextBytes(nonce);
    HandshakeLayout.Hello h =
        HandshakeLayout.decodeHello(
            HandshakeLayout.encodeHello(
                2, nonce, "app".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertEquals(HandshakeLayout.VERSION, h.version());
    assertEquals(2, h.purpose());
    assertEquals(3, h.applicationLength());
    assertArrayEquals(nonce, h.nonce());

    byte[] f = new byte[TcpFrameLayout.REQUEST_BYTES];
    TcpFrameLayout.encodeRequest(
        f, 0, 7, -5, 1 << 30, 0xFFFF_FFFF_0000_0001L, new FrameMac(new byte[32]));
    TcpFrameLayout.Request r = new TcpFrameLayout.Request();
    TcpFrameLayout.decodeRequest(f, 0, r);
    assertEquals(7, r.id);
    assertEquals(-5, r.rkey);
    assertEquals(1 << 30, r.length);
    assertEquals(0xFFFF_FFFF_0000_0001L, r.address);

    ByteBuffer response = ByteBuffer.allocate(TcpFrameLayout.RESPONSE_HEADER_BYTES);
    TcpFrameLayout.encodeResponseHeader(response, 0, 9, TcpFrameLayout.STATUS_OK, 123);
    TcpFrameLayout.ResponseHeader rh = new TcpFrameLayout.ResponseHeader();
    TcpFrameLayout.decodeResponseHeader(response, 0, rh);
    assertEquals(9, rh.id);
    assertEquals(123, rh.length);

    FrameMac mac = new FrameMac(new byte[32]);
    byte[] call = CallFrameLayout.encode(3, 2, new byte[] {1, 2}, 0, 2, mac);
    CallFrameLayout.Header ch = CallFrameLayout.decodeHeader(call, 10, 10);
    assertEquals(new CallFrameLayout.Header(3, 2, 2), ch);
    assertTrue(CallFrameLayout.verify(call, 2, new FrameMac(new byte[32])));

    InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("198.18.0.7"), 4791);
    assertEquals(a, ConnectLayout.decodeAnnouncement(ConnectLayout.encodeAnnouncement(a)));
    assertEquals(4791, ConnectLayout.decodeAnswer(ConnectLayout.encodeAnswer(4791)));
  }
}
