/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.transport.handshake.Handshake.Refused.Reason;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The handshake's two state machines against each other (in memory) and against hand-made messages:
 * what they establish, and the specific refusal for each way a handshake goes wrong.
 */
@Timeout(30)
class HandshakeTest {
  private static final byte[] SECRET = "0123456789abcdef-secret".getBytes(StandardCharsets.UTF_8);
  private static final byte[] WRONG = "another-secret-0123456".getBytes(StandardCharsets.UTF_8);
  private static final ApplicationSecrets SECRETS = ApplicationSecrets.of("app-1", SECRET);

  /** Both sides of one handshake, with the bytes shuttled between them in memory. */
  private static final class Run {
    final ClientHandshake client;
    final ServerHandshake server;
    final ByteArrayOutputStream wire = new ByteArrayOutputStream();

    Run(ClientHandshake client, ServerHandshake server) {
      this.client = client;
      this.server = server;
    }

    /** Runs until one side is done or refused; the server accepts a verified client. */
    Run go() {
      for (int step = 0; step < 20; step++) {
        move(client.out(), server.in(), server::received);
        if (server.verified()) {
          server.accept();
        }
        if (server.refusal() != null) {
          deliverLast(server.out());
          return this;
        }
        move(server.out(), client.in(), client::received);
        if (client.refusal() != null) {
          server.hungUp();
          return this;
        }
        if (client.done() && server.done()) {
          return this;
        }
      }
      throw new AssertionError("handshake did not end");
    }

    /** A refused server's last message reaches the client, which may then refuse too. */
    private void deliverLast(ByteBuffer out) {
      ByteBuffer in = client.in();
      if (in != null && out.remaining() == in.remaining()) {
        record(out);
        in.put(out);
        client.received();
      }
    }

    private void move(ByteBuffer from, ByteBuffer to, Runnable received) {
      while (from.hasRemaining() && to != null && to.hasRemaining()) {
        int n = Math.min(from.remaining(), to.remaining());
        ByteBuffer chunk = from.slice(from.position(), n);
        record(chunk.duplicate());
        to.put(chunk);
        from.position(from.position() + n);
        if (!to.hasRemaining()) {
          received.run();
          return;
        }
      }
    }

    private void record(ByteBuffer b) {
      byte[] a = new byte[b.remaining()];
      b.duplicate().get(a);
      wire.write(a, 0, a.length);
    }
  }

  private static ServerHandshake server(NonceHistory history, Predicate<Purpose> served) {
    return new ServerHandshake(SECRETS, history, served);
  }

  private static ServerHandshake server() {
    return server(new NonceHistory(64, TimeUnit.MINUTES.toNanos(1)), p -> true);
  }

  @Test
  void bothSidesProveTheSecretWithoutSendingItAndShareDirectionalKeys() {
    Run r = new Run(new ClientHandshake("app-1", SECRET, Purpose.CALL), server()).go();
    assertTrue(r.client.done() && r.server.done());
    Handshake.Result c = r.client.result();
    Handshake.Result s = r.server.result();
    assertEquals("app-1", s.application());
    assertEquals(Purpose.CALL, s.purpose());
    assertArrayEquals(c.sessionKey(), s.sessionKey(), "both sides derive one session key");
    String wire = new String(r.wire.toByteArray(), StandardCharsets.ISO_8859_1);
    assertFalse(
        wire.contains(new String(SECRET, StandardCharsets.ISO_8859_1)),
        "the secret crossed the wire");
    // a frame the client tags checks out on the server, in order; the other direction's key differs
    byte[] frame = "a frame".getBytes(StandardCharsets.US_ASCII);
    byte[] tag = new byte[FrameMac.TAG_BYTES];
    c.clientToServer().sign(frame, 0, frame.length, tag, 0);
    assertTrue(s.clientToServer().verify(frame, 0, frame.length, tag, 0));
    assertFalse(
        s.serverToClient().verify(frame, 0, frame.length, tag, 0),
        "a frame reflected into the other direction must fail");
  }

  /**
   * The server's first message carries nothing computed with the secret: an outsider who sends a
   * HELLO per job gets no HMAC to search the secret offline with (version 2's CHALLENGE proved the
   * server first, an oracle for any host). The client proves first; the server proves itself in its
   * RESULT, to a client that proved the secret.
   */
  @Test
  void theChallengeCarriesOnlyTheServersNonceNothingComputedWithTheSecret() {
    ServerHandshake s = server();
    byte[] clientNonce = Handshake.nonce();
    feed(s, HandshakeLayout.encodeHello(Purpose.CALL.code(), clientNonce, bytes("app-1")));
    assertNull(s.refusal());
    byte[] challenge = new byte[s.out().remaining()];
    s.out().duplicate().get(challenge);
    byte[] serverNonce = HandshakeLayout.decodeChallenge(ByteBuffer.wrap(challenge)).nonce();
    byte[] p = {(byte) Purpose.CALL.code()};
    byte[] oracle =
        Handshake.hmac(SECRET, Handshake.SERVER_LABEL, clientNonce, serverNonce, p, bytes("app-1"));
    assertFalse(
        new String(challenge, StandardCharsets.ISO_8859_1)
            .contains(new String(oracle, StandardCharsets.ISO_8859_1)),
        "the challenge carries the server's proof before the client proved anything");
    assertEquals(8 + HandshakeLayout.NONCE_BYTES, challenge.length, "magic, status, nonce");
  }

  @Test
  void aClientRefusesAResultWhoseServerProofFails() {
    ClientHandshake c = new ClientHandshake("app-1", SECRET, Purpose.READ);
    ServerHandshake s =
        new ServerHandshake(
            ApplicationSecrets.of("app-1", SECRET),
            new NonceHistory(64, TimeUnit.MINUTES.toNanos(1)),
            x -> true);
    Run r = new Run(c, s);
    for (int i = 0; i < 4 && !s.verified(); i++) {
      r.move(c.out(), s.in(), s::received);
      r.move(s.out(), c.in(), c::received);
    }
    assertTrue(s.verified());
    // a RESULT that says OK without the server's proof: a server that does not know the secret
    c.in().put(HandshakeLayout.encodeResult(HandshakeLayout.STATUS_OK, new byte[32]));
    c.received();
    assertEquals(Reason.WRONG_SECRET, c.refusal().reason());
    assertTrue(c.refusal().getMessage().contains("could not prove"), c.refusal().getMessage());
  }

  @Test
  void aVersionTwoClientIsToldTheVersionDiffersInTheLengthItReads() {
    ServerHandshake s = server();
    ByteBuffer v2 = HandshakeLayout.encodeHello(Purpose.READ.code(), new byte[32], bytes("app-1"));
    v2.putShort(HandshakeLayout.HELLO_VERSION_OFFSET, (short) 2);
    feed(s, v2);
    assertEquals(Reason.BAD_VERSION, s.refusal().reason());
    assertEquals(72, s.out().remaining(), "version 2's CHALLENGE length");
    assertEquals(
        HandshakeLayout.STATUS_BAD_VERSION, HandshakeLayout.decodeChallenge(s.out()).status());
  }

  @Test
  void aClientOfAVersionTwoServerIsToldTheVersionDiffers() {
    ClientHandshake c = new ClientHandshake("app-1", SECRET, Purpose.READ);
    // what a version 2 server answers a newer HELLO: its 72-byte CHALLENGE, status BAD_VERSION
    ByteBuffer old = ByteBuffer.allocate(72);
    old.putInt(0, HandshakeLayout.MAGIC).putInt(4, HandshakeLayout.STATUS_BAD_VERSION);
    c.in().put(old.limit(c.in().remaining()));
    c.received();
    assertEquals(Reason.BAD_VERSION, c.refusal().reason());
  }

  @Test
  void aWrongSecretIsRefusedOnBothSidesWithoutTheServerTellingWhy() {
    Run r = new Run(new ClientHandshake("app-1", WRONG, Purpose.READ), server()).go();
    assertEquals(Reason.WRONG_SECRET, r.client.refusal().reason());
    assertTrue(r.client.refusal().getMessage().contains("could not prove"));
    assertEquals(Reason.WRONG_SECRET, r.server.refusal().reason());
  }

  @Test
  void anUnknownApplicationIsRefusedLikeAWrongSecret() {
    Run r = new Run(new ClientHandshake("app-unknown", SECRET, Purpose.READ), server()).go();
    assertEquals(
        Reason.WRONG_SECRET, r.client.refusal().reason(), "the client learns nothing more");
    assertEquals(Reason.UNKNOWN_APPLICATION, r.server.refusal().reason());
  }

  /**
   * The server logs its refusals; the application name is the unauthenticated client's choice: a
   * name with line breaks or terminal escapes must not forge log lines, nor a long one fill them.
   */
  @Test
  void aRefusalNamesAnUnauthenticatedClientsApplicationOnlyAsPrintableText() {
    String hostile = "app\n2026-12-04 12:00:00 INFO accepted app-1\u001b[2J" + "x".repeat(400);
    Run r = new Run(new ClientHandshake(hostile, SECRET, Purpose.READ), server()).go();
    assertEquals(Reason.UNKNOWN_APPLICATION, r.server.refusal().reason());
    String m = r.server.refusal().getMessage();
    assertTrue(m.chars().allMatch(c -> c >= 0x20 && c < 0x7f), m);
    assertTrue(m.length() < 200, m.length() + " characters: " + m);
    assertTrue(m.contains("app?2026-12-04"), m);
  }

  @Test
  void aClientThatSkipsTheProofCheckIsStillRefusedByTheServer() {
    ServerHandshake s = server();
    feed(s, HandshakeLayout.encodeHello(Purpose.READ.code(), new byte[32], bytes("app-1")));
    assertEquals(HandshakeLayout.STATUS_OK, HandshakeLayout.decodeChallenge(s.out()).status());
    feed(s, ByteBuffer.allocate(HandshakeLayout.PROOF_BYTES));
    assertEquals(Reason.WRONG_SECRET, s.refusal().reason());
    assertEquals(HandshakeLayout.STATUS_REFUSED, HandshakeLayout.decodeResult(s.out()));
  }

  @Test
  void aPurposeTheServerDoesNotServeIsRefusedByName() {
    Run r =
        new Run(
                new ClientHandshake("app-1", SECRET, Purpose.READ),
                server(new NonceHistory(64, Long.MAX_VALUE / 4), p -> p == Purpose.CALL))
            .go();
    assertEquals(Reason.UNKNOWN_PURPOSE, r.server.refusal().reason());
    assertEquals(Reason.UNKNOWN_PURPOSE, r.client.refusal().reason());
    ServerHandshake s = server();
    feed(s, HandshakeLayout.encodeHello(9, new byte[32], bytes("app-1")));
    assertEquals(Reason.UNKNOWN_PURPOSE, s.refusal().reason());
  }

  @Test
  void aVersionOneClientIsToldTheVersionDiffers() {
    ServerHandshake s = server();
    // version 1: magic, version, application length, nonce, application
    ByteBuffer v1 = ByteBuffer.allocate(40 + 5);
    v1.putInt(HandshakeLayout.MAGIC)
        .putShort((short) 1)
        .putShort((short) 5)
        .put(new byte[32])
        .put(bytes("app-1"))
        .flip();
    feed(s, v1);
    assertEquals(Reason.BAD_VERSION, s.refusal().reason());
    assertEquals(
        HandshakeLayout.STATUS_BAD_VERSION, HandshakeLayout.decodeChallenge(s.out()).status());
  }

  @Test
  void bytesThatAreNotAHandshakeAreRefusedAsBadMagic() {
    ServerHandshake s = server();
    feed(s, ByteBuffer.wrap("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII)));
    assertEquals(Reason.BAD_MAGIC, s.refusal().reason());
    assertFalse(s.out().hasRemaining(), "nothing is answered to a stranger");
  }

  @Test
  void malformedHellosAreRefusedAsMalformed() {
    for (int appLength : new int[] {0, HandshakeLayout.MAX_APPLICATION_BYTES + 1, 0xffff}) {
      ServerHandshake s = server();
      ByteBuffer h = HandshakeLayout.encodeHello(Purpose.READ.code(), new byte[32], bytes("app-1"));
      h.putShort(HandshakeLayout.HELLO_APP_LENGTH_OFFSET, (short) appLength);
      feed(s, h);
      assertEquals(Reason.MALFORMED, s.refusal().reason(), "application length " + appLength);
      assertTrue(s.refusal().getMessage().contains("application length=" + appLength));
    }
    ServerHandshake s = server();
    ByteBuffer h = HandshakeLayout.encodeHello(Purpose.READ.code(), new byte[32], bytes("app-1"));
    h.put(HandshakeLayout.HELLO_RESERVED_OFFSET, (byte) 1);
    feed(s, h);
    assertEquals(Reason.MALFORMED, s.refusal().reason());
  }

  @Test
  void aReplayedHelloIsRefusedAsReplayed() {
    NonceHistory history = new NonceHistory(64, TimeUnit.MINUTES.toNanos(1));
    ByteBuffer hello =
        HandshakeLayout.encodeHello(Purpose.READ.code(), Handshake.nonce(), bytes("app-1"));
    ServerHandshake first = server(history, p -> true);
    feed(first, hello.duplicate());
    assertNull(first.refusal());
    ServerHandshake again = server(history, p -> true);
    feed(again, hello.duplicate());
    assertEquals(Reason.REPLAYED, again.refusal().reason());
    assertEquals(
        HandshakeLayout.STATUS_REPLAYED, HandshakeLayout.decodeChallenge(again.out()).status());
  }

  @Test
  void aHelloCarryingTheServersOwnNonceIsRefusedAsReflected() {
    NonceHistory history = new NonceHistory(64, TimeUnit.MINUTES.toNanos(1));
    ServerHandshake first = server(history, p -> true);
    feed(
        first, HandshakeLayout.encodeHello(Purpose.READ.code(), Handshake.nonce(), bytes("app-1")));
    byte[] serverNonce = HandshakeLayout.decodeChallenge(first.out()).nonce();
    ServerHandshake reflected = server(history, p -> true);
    feed(reflected, HandshakeLayout.encodeHello(Purpose.READ.code(), serverNonce, bytes("app-1")));
    assertEquals(Reason.REFLECTED, reflected.refusal().reason());
  }

  @Test
  void aClientRefusesAChallengeThatEchoesItsOwnNonce() {
    ClientHandshake c = new ClientHandshake("app-1", SECRET, Purpose.READ);
    byte[] mine = new byte[32];
    c.out().duplicate().get(HandshakeLayout.HELLO_NONCE_OFFSET, mine);
    c.in().put(HandshakeLayout.encodeChallenge(HandshakeLayout.STATUS_OK, mine));
    c.received();
    assertEquals(Reason.REFLECTED, c.refusal().reason());
  }

  @Test
  void aServerAtItsBoundSaysBusyAfterTheProof() {
    ClientHandshake c = new ClientHandshake("app-1", SECRET, Purpose.READ);
    ServerHandshake s = server();
    Run r = new Run(c, s);
    for (int i = 0; i < 4 && !s.verified(); i++) {
      r.move(c.out(), s.in(), s::received);
      r.move(s.out(), c.in(), c::received);
    }
    assertTrue(s.verified());
    s.refuseBusy("test bound");
    assertEquals(Reason.BUSY, s.refusal().reason());
    r.move(s.out(), c.in(), c::received);
    assertEquals(Reason.BUSY, c.refusal().reason());
  }

  @Test
  void theBlockingDriversInteroperate() throws Exception {
    Pipe up = Pipe.open();
    Pipe down = Pipe.open();
    CompletableFuture<Handshake.Result> server =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return Handshake.server(
                    Handshake.channel(up.source(), down.sink(), down.sink()), SECRETS);
              } catch (IOException e) {
                throw new RuntimeException(e);
              }
            });
    Handshake.Result client =
        Handshake.client(Handshake.channel(down.source(), up.sink(), up.sink()), "app-1", SECRET);
    assertArrayEquals(client.sessionKey(), server.get(10, TimeUnit.SECONDS).sessionKey());
    assertEquals(Purpose.READ, server.get().purpose());
  }

  @Test
  void frameMacIsHmacSha256OverTheSequenceNumberAndTheFrame() throws Exception {
    byte[] key = bytes("a key of thirty-two bytes, nearly");
    FrameMac mac = new FrameMac(key);
    javax.crypto.Mac reference = javax.crypto.Mac.getInstance("HmacSHA256");
    reference.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
    java.util.Random random = new java.util.Random(3);
    for (long seq = 0; seq < 200; seq++) {
      byte[] frame = new byte[random.nextInt(100)];
      random.nextBytes(frame);
      byte[] tag = new byte[FrameMac.TAG_BYTES];
      mac.sign(frame, 0, frame.length, tag, 0);
      reference.update(ByteBuffer.allocate(8).putLong(0, seq).array());
      reference.update(frame);
      byte[] want = java.util.Arrays.copyOf(reference.doFinal(), FrameMac.TAG_BYTES);
      assertArrayEquals(want, tag, "frame " + seq);
    }
    assertEquals(200, mac.sequence());
  }

  private static void feed(ServerHandshake s, ByteBuffer bytes) {
    while (bytes.hasRemaining() && s.in() != null && s.refusal() == null) {
      ByteBuffer in = s.in();
      int n = Math.min(in.remaining(), bytes.remaining());
      in.put(bytes.slice(bytes.position(), n));
      bytes.position(bytes.position() + n);
      if (!in.hasRemaining()) {
        s.received();
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
