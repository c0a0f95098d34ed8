/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.testing.RawPeer;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.HandshakeLayout;
import io.rdmashuffle.transport.handshake.Purpose;
import io.rdmashuffle.transport.server.CallFrameLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections that never complete a proper handshake: frames before it, bad magic and versions,
 * unknown purposes, malformed fields, wrong secrets, unknown applications, replayed and reflected
 * handshakes, truncated ones, and random bytes (fixed seed, bounded count). Each is refused with
 * its specific reason, and the server keeps serving.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class HostileHandshakeTest extends HostileServerFixture {
  private static final Figures FIGURES = new Figures("handshakes");

  @Override
  Figures figures() {
    return FIGURES;
  }

  @AfterAll
  static void printFigures() {
    FIGURES.print();
  }

  @Test
  void everyWrongHandshakeIsRefusedWithItsOwnReason() throws Exception {
    Random random = new Random(11);
    byte[] readFrame = request(0, region.rkey(), 100, region.address(), new FrameMac(new byte[32]));
    closedSilently("a READ request before the handshake", readFrame, Refusal.HANDSHAKE_FAILED);
    closedSilently(
        "a call before the handshake",
        CallFrameLayout.encode(1, ECHO, new byte[4], 0, 4, new FrameMac(new byte[32])),
        Refusal.HANDSHAKE_FAILED);
    closedSilently(
        "bad magic",
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
        Refusal.HANDSHAKE_FAILED);
    ByteBuffer v1 = ByteBuffer.allocate(40 + APP.length());
    v1.putInt(HandshakeLayout.MAGIC)
        .putShort((short) 1)
        .putShort((short) APP.length())
        .put(nonce(random))
        .put(APP.getBytes(StandardCharsets.UTF_8))
        .flip();
    challengedWith("handshake version 1", v1, HandshakeLayout.STATUS_BAD_VERSION);
    challengedWith(
        "unknown purpose", hello(9, nonce(random), APP), HandshakeLayout.STATUS_UNKNOWN_PURPOSE);
    challengedWith(
        "purpose 0", hello(0, nonce(random), APP), HandshakeLayout.STATUS_UNKNOWN_PURPOSE);
    for (int length : new int[] {0, HandshakeLayout.MAX_APPLICATION_BYTES + 1, 0xffff}) {
      ByteBuffer h = hello(Purpose.READ.code(), nonce(random), APP);
      h.putShort(HandshakeLayout.HELLO_APP_LENGTH_OFFSET, (short) length);
      closedSilently("application length " + length, h.array(), Refusal.HANDSHAKE_FAILED);
    }
    ByteBuffer reserved = hello(Purpose.READ.code(), nonce(random), APP);
    reserved.put(HandshakeLayout.HELLO_RESERVED_OFFSET, (byte) 0x80);
    closedSilently("reserved byte set", reserved.array(), Refusal.HANDSHAKE_FAILED);

    for (String[] who :
        new String[][] {{APP, "wrong secret"}, {"app-unknown", "unknown application"}}) {
      long before = refusals(Refusal.HANDSHAKE_FAILED);
      try (RawPeer r = new RawPeer(address)) {
        Handshake.Refused e =
            assertThrows(Handshake.Refused.class, () -> r.handshake(who[0], WRONG, Purpose.READ));
        assertEquals(Handshake.Refused.Reason.WRONG_SECRET, e.reason(), who[1]);
      }
      awaitRefusals(Refusal.HANDSHAKE_FAILED, before + 1);
      refused(who[1]);
    }

    long before = refusals(Refusal.HANDSHAKE_FAILED);
    try (RawPeer r = new RawPeer(address)) {
      r.send(hello(Purpose.READ.code(), nonce(random), APP));
      assertNotNull(r.read(HandshakeLayout.CHALLENGE_BYTES));
      r.send(new byte[HandshakeLayout.PROOF_BYTES]); // a proof made without the secret
      assertEquals(
          HandshakeLayout.STATUS_REFUSED,
          HandshakeLayout.decodeResult(r.read(HandshakeLayout.RESULT_BYTES)));
      assertTrue(r.closedWithin(5000));
    }
    awaitRefusals(Refusal.HANDSHAKE_FAILED, before + 1);
    refused("proof without the secret");

    // a complete, successful handshake, then its HELLO again: replayed
    ByteBuffer recorded;
    try (RawPeer r = new RawPeer(address)) {
      io.rdmashuffle.transport.handshake.ClientHandshake h =
          new io.rdmashuffle.transport.handshake.ClientHandshake(APP, SECRET, Purpose.READ);
      recorded = h.out().duplicate();
      r.send(h.out());
      h.in().put(r.read(HandshakeLayout.CHALLENGE_BYTES));
      h.received();
      r.send(h.out());
      h.in().put(r.read(HandshakeLayout.RESULT_BYTES));
      h.received();
      assertTrue(h.done());
    }
    challengedWith("replayed handshake", recorded, HandshakeLayout.STATUS_REPLAYED);

    // the server's own nonce sent back as a client nonce: reflected
    RawPeer first = new RawPeer(address);
    try {
      first.send(hello(Purpose.READ.code(), nonce(random), APP));
      byte[] serverNonce =
          HandshakeLayout.decodeChallenge(first.read(HandshakeLayout.CHALLENGE_BYTES)).nonce();
      challengedWith(
          "reflected handshake",
          hello(Purpose.READ.code(), serverNonce, APP),
          HandshakeLayout.STATUS_REFLECTED);
    } finally {
      long abandoned = refusals(Refusal.HANDSHAKE_FAILED);
      first.close(); // it never proves the secret: the server counts it as such
      awaitRefusals(Refusal.HANDSHAKE_FAILED, abandoned + 1);
      refused("handshake abandoned after the challenge");
    }

    byte[] partial =
        java.util.Arrays.copyOf(hello(Purpose.READ.code(), nonce(random), APP).array(), 20);
    before = refusals(Refusal.HANDSHAKE_FAILED);
    try (RawPeer r = new RawPeer(address)) {
      r.send(partial);
    }
    awaitRefusals(Refusal.HANDSHAKE_FAILED, before + 1);
    refused("truncated HELLO, then hung up");
    before = refusals(Refusal.HANDSHAKE_TIMEOUT);
    try (RawPeer r = new RawPeer(address)) {
      r.send(partial);
      long t0 = System.nanoTime();
      assertTrue(r.closedWithin(10_000));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 1500, "dropped after " + ms + " ms; the handshake deadline is 2 s");
    }
    awaitRefusals(Refusal.HANDSHAKE_TIMEOUT, before + 1);
    refused("truncated HELLO, then silence");
  }

  @Test
  void randomBytesBeforeTheHandshakeNeverGetAnAnswer() throws Exception {
    Random random = new Random(20261201);
    for (int i = 0; i < 300; i++) {
      byte[] junk = new byte[HandshakeLayout.HELLO_HEAD_BYTES + random.nextInt(300)];
      random.nextBytes(junk);
      try (RawPeer r = new RawPeer(address)) {
        r.send(junk);
        assertTrue(r.closedWithin(5000), "random HELLO " + i + " was answered or kept");
      }
      refused("random bytes before the handshake");
    }
  }
}
