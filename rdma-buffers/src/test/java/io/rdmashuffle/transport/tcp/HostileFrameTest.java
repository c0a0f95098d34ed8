/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.RawPeer;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.CallServices;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.Purpose;
import io.rdmashuffle.transport.server.CallFrameLayout;
import io.rdmashuffle.transport.verbs.AnnouncementService;
import io.rdmashuffle.transport.verbs.ConnectLayout;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Authenticated connections that send what may not be served: READs of bad lengths, addresses and
 * rkeys (refused with their status, the connection goes on), forged, replayed, reflected and
 * truncated READ and call frames (not served, the connection closed), calls the server or the verbs
 * announcement service must refuse, and random bytes (fixed seed, bounded count).
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class HostileFrameTest extends HostileServerFixture {
  private static final Figures FIGURES = new Figures("frames");

  @Override
  Figures figures() {
    return FIGURES;
  }

  @AfterAll
  static void printFigures() {
    FIGURES.print();
  }

  @Test
  void readRequestsBeyondWhatMayBeReadAreRefusedWithTheirStatusAndTheConnectionGoesOn()
      throws Exception {
    Object[][] cases = {
      {"negative length", region.rkey(), -1, region.address(), STATUS_OUT_OF_BOUNDS},
      {
        "length Integer.MIN_VALUE",
        region.rkey(),
        Integer.MIN_VALUE,
        region.address(),
        STATUS_OUT_OF_BOUNDS
      },
      {"zero length", region.rkey(), 0, region.address(), STATUS_OUT_OF_BOUNDS},
      {"longer than the region", region.rkey(), REGION + 1, region.address(), STATUS_OUT_OF_BOUNDS},
      {
        "length overflowing the address",
        region.rkey(),
        Integer.MAX_VALUE,
        region.address() + REGION - 1,
        STATUS_OUT_OF_BOUNDS
      },
      {"address before the region", region.rkey(), 1, region.address() - 1, STATUS_OUT_OF_BOUNDS},
      {
        "address at the region's end",
        region.rkey(),
        1,
        region.address() + REGION,
        STATUS_OUT_OF_BOUNDS
      },
      {
        "address at the top of the address space",
        region.rkey(),
        16,
        0xFFFF_FFFF_FFFF_FFF0L,
        STATUS_OUT_OF_BOUNDS
      },
      {"address Long.MAX_VALUE", region.rkey(), 1, Long.MAX_VALUE, STATUS_OUT_OF_BOUNDS},
      {"address Long.MIN_VALUE", region.rkey(), 1, Long.MIN_VALUE, STATUS_OUT_OF_BOUNDS},
      {"unknown rkey", region.rkey() ^ 0x5A5A0000, 100, region.address(), STATUS_BAD_RKEY},
      {"rkey 0", 0, 100, region.address(), STATUS_BAD_RKEY},
      {"stale rkey of a withdrawn region", stale.rkey(), 100, stale.address(), STATUS_BAD_RKEY},
      {"another application's rkey", foreign.rkey(), 100, foreign.address(), STATUS_NOT_PERMITTED},
    };
    long counted = refusals(Refusal.READ_REFUSED);
    try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, Purpose.READ)) {
      FrameMac mac = r.proven.clientToServer();
      int id = 0;
      for (Object[] c : cases) {
        r.send(request(++id, (int) c[1], (int) c[2], (long) c[3], mac));
        ByteBuffer h = r.read(RESPONSE_HEADER_BYTES);
        assertNotNull(h, c[0] + ": no answer");
        ResponseHeader got = header(h);
        assertEquals(id, got.id, c[0] + ": id");
        assertEquals((int) c[4], got.status, (String) c[0]);
        assertEquals(0, got.length, c[0] + ": length");
        refused("READ answered " + reasonOf(got.status));
      }
      r.send(request(++id, region.rkey(), 500, region.address() + 7, mac));
      ResponseHeader ok = header(r.read(RESPONSE_HEADER_BYTES));
      assertEquals(STATUS_OK, ok.status);
      assertEquals(
          -1,
          Patterns.firstMismatch(r.read(500), 0, 500, 7, 1),
          "the same connection serves a good READ after every refusal");
    }
    assertEquals(
        counted + cases.length,
        refusals(Refusal.READ_REFUSED),
        "every refused READ is counted by the server");
  }

  @Test
  void forgedReplayedAndTruncatedReadFramesAreNotServed() throws Exception {
    long served = server.metrics().readsServed();
    String[] hows = {
      "READ frame with a wrong tag",
      "READ frame altered after tagging",
      "READ frame with the reserved field set",
      "READ frame tagged with the other direction's key",
      "READ frame of an earlier session"
    };
    FrameMac earlier;
    try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, Purpose.READ)) {
      earlier = r.proven.clientToServer();
    }
    for (int i = 0; i < hows.length; i++) {
      long before = refusals(Refusal.FRAME_REJECTED);
      try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, Purpose.READ)) {
        byte[] f;
        switch (i) {
          case 0 -> {
            f = request(1, region.rkey(), 100, region.address(), r.proven.clientToServer());
            f[REQUEST_TAG_OFFSET] ^= 1;
          }
          case 1 -> {
            f = request(1, region.rkey(), 100, region.address(), r.proven.clientToServer());
            f[REQUEST_LENGTH_OFFSET + 2] ^= 0x10; // ask for more than was tagged
          }
          case 2 -> {
            f = new byte[REQUEST_BYTES];
            encodeRequest(f, 0, 1, region.rkey(), 100, region.address());
            f[REQUEST_RESERVED_OFFSET + 3] = 1;
            r.proven.clientToServer().sign(f, 0, REQUEST_BODY_BYTES, f, REQUEST_TAG_OFFSET);
          }
          case 3 -> f = request(1, region.rkey(), 100, region.address(), r.proven.serverToClient());
          default -> f = request(1, region.rkey(), 100, region.address(), earlier);
        }
        r.send(f);
        assertTrue(r.closedWithin(5000), hows[i] + ": answered or kept open");
      }
      awaitRefusals(Refusal.FRAME_REJECTED, before + 1);
      refused(hows[i]);
    }
    long before = refusals(Refusal.FRAME_REJECTED);
    try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, Purpose.READ)) {
      byte[] f = request(1, region.rkey(), 100, region.address(), r.proven.clientToServer());
      r.send(f);
      assertEquals(STATUS_OK, header(r.read(RESPONSE_HEADER_BYTES)).status);
      assertNotNull(r.read(100));
      r.send(f); // the same bytes again
      assertTrue(r.closedWithin(5000), "a replayed READ frame was answered");
    }
    awaitRefusals(Refusal.FRAME_REJECTED, before + 1);
    refused("replayed READ frame");
    assertEquals(served + 1, server.metrics().readsServed(), "only the genuine READ was served");

    long idle = refusals(Refusal.IDLE);
    try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, Purpose.READ)) {
      byte[] f = request(1, region.rkey(), 100, region.address(), r.proven.clientToServer());
      r.send(java.util.Arrays.copyOf(f, REQUEST_BYTES - 1));
      assertTrue(
          r.closedWithin(10_000), "a truncated frame was answered, or kept past the idle timeout");
    }
    awaitRefusals(Refusal.IDLE, idle + 1);
    refused("truncated READ frame, then silence (dropped as idle)");
  }

  private ByteBuffer answerOf(RawPeer r, FrameMac answers, int id) throws IOException {
    ByteBuffer h = r.read(CallFrameLayout.HEADER_BYTES);
    assertNotNull(h, "no answer");
    CallFrameLayout.Header header =
        CallFrameLayout.decodeHeader(h.array(), 1 << 20, Integer.MAX_VALUE);
    assertEquals(id, header.id());
    ByteBuffer rest = r.read(header.length() + CallFrameLayout.TAG_BYTES);
    byte[] frame = new byte[CallFrameLayout.frameBytes(header.length())];
    System.arraycopy(h.array(), 0, frame, 0, CallFrameLayout.HEADER_BYTES);
    System.arraycopy(rest.array(), 0, frame, CallFrameLayout.HEADER_BYTES, rest.remaining());
    assertTrue(CallFrameLayout.verify(frame, header.length(), answers), "the answer's tag");
    return ByteBuffer.wrap(frame, 0, CallFrameLayout.HEADER_BYTES + header.length()).slice();
  }

  private static int status(ByteBuffer answer) {
    return answer.getInt(CallFrameLayout.CODE_OFFSET);
  }

  private static byte[] call(int id, int service, byte[] payload, FrameMac mac) {
    return CallFrameLayout.encode(id, service, payload, 0, payload.length, mac);
  }

  @Test
  void callsThatMayNotBeAnsweredAreRefusedByStatusOrByClosing() throws Exception {
    try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, Purpose.CALL)) {
      FrameMac requests = r.proven.clientToServer();
      FrameMac answers = r.proven.serverToClient();
      r.send(call(1, 4242, new byte[3], requests));
      assertEquals(CallRefusedException.UNKNOWN_SERVICE, status(answerOf(r, answers, 1)));
      refused("call of an unknown service");
      byte[] bad =
          ConnectLayout.encodeAnnouncement(
                  new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 4000))
              .array();
      bad[0] = 5;
      r.send(call(2, CallServices.VERBS_ANNOUNCE, bad, requests));
      assertEquals(CallRefusedException.MALFORMED, status(answerOf(r, answers, 2)));
      refused("malformed announcement");
      byte[] elsewhere =
          ConnectLayout.encodeAnnouncement(
                  new InetSocketAddress(InetAddress.getByName("127.0.0.9"), 4000))
              .array();
      r.send(call(3, CallServices.VERBS_ANNOUNCE, elsewhere, requests));
      assertEquals(AnnouncementService.SOURCE_MISMATCH, status(answerOf(r, answers, 3)));
      refused("announcement of another host's address");
      byte[] mine =
          ConnectLayout.encodeAnnouncement(
                  new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 4001))
              .array();
      r.send(call(4, CallServices.VERBS_ANNOUNCE, mine, requests));
      assertEquals(CallFrameLayout.STATUS_OK, status(answerOf(r, answers, 4)));
      try (RawPeer other = new RawPeer(address).handshake(OTHER, OTHER_SECRET, Purpose.CALL)) {
        other.send(call(1, CallServices.VERBS_ANNOUNCE, mine, other.proven.clientToServer()));
        assertEquals(
            AnnouncementService.TAKEN, status(answerOf(other, other.proven.serverToClient(), 1)));
        refused("announcement taking over another application's");
      }
    }
    String[] hows = {
      "call longer than call.maxRequestBytes",
      "call of negative length",
      "call with a wrong tag",
      "replayed call frame",
      "call frame of a READ session's key"
    };
    for (int i = 0; i < hows.length; i++) {
      long before = refusals(Refusal.FRAME_REJECTED);
      try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, Purpose.CALL)) {
        FrameMac requests = r.proven.clientToServer();
        byte[] f = call(1, ECHO, new byte[8], requests);
        switch (i) {
          case 0 -> ByteBuffer.wrap(f).putInt(CallFrameLayout.LENGTH_OFFSET, (64 << 10) + 1);
          case 1 -> ByteBuffer.wrap(f).putInt(CallFrameLayout.LENGTH_OFFSET, -8);
          case 2 -> f[f.length - 1] ^= 1;
          case 3 -> {
            r.send(f);
            assertEquals(
                CallFrameLayout.STATUS_OK, status(answerOf(r, r.proven.serverToClient(), 1)));
          }
          default -> f = call(1, ECHO, new byte[8], r.proven.serverToClient());
        }
        r.send(f);
        assertTrue(r.closedWithin(5000), hows[i] + ": answered or kept open");
      }
      awaitRefusals(Refusal.FRAME_REJECTED, before + 1);
      refused(hows[i]);
    }
  }

  @Test
  void randomBytesAfterTheHandshakeNeverGetAnAnswer() throws Exception {
    Random random = new Random(20261202);
    long served = server.metrics().readsServed();
    for (Purpose p : Purpose.values()) {
      for (int i = 0; i < 100; i++) {
        byte[] junk = new byte[REQUEST_BYTES + random.nextInt(400)];
        random.nextBytes(junk);
        try (RawPeer r = new RawPeer(address).handshake(APP, SECRET, p)) {
          r.send(junk);
          // a random header may announce a call longer than what follows: then the peer is
          // stalled in a frame and idles out (2 s here)
          assertTrue(r.closedWithin(10_000), "random " + p + " frames " + i + " were answered");
        }
        refused("random bytes after a " + p + " handshake");
      }
    }
    assertEquals(served, server.metrics().readsServed(), "random bytes were served as a READ");
  }
}
