/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.CallServices;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.server.ConnectionServer;
import io.rdmashuffle.transport.server.ServerLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The verbs transport's connect announcement, a call service of the connection server: what it
 * admits and what it refuses. Needs no RDMA device.
 */
@Timeout(60)
class AnnouncementServiceTest {
  private static final byte[] SECRET = "control-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final byte[] OTHER_SECRET =
      "other-app-secret-012345678".getBytes(StandardCharsets.UTF_8);
  private static final int CM_PORT = 4791;

  private final TransportMetrics serverMetrics = new TransportMetrics();
  private ConnectExpectations expectations;
  private ApplicationSecrets secrets;
  private ConnectionServer server;
  private ConnectionServer reader;
  private PeerAddress address;

  static ServerLimits limits(String connectTimeout) {
    return ServerLimits.from(
        RdmaConf.of(
            TestSchema.SPARK_KEYS,
            Map.of(
                "spark.shuffle.rdma.connect.timeout",
                connectTimeout,
                "spark.shuffle.rdma.read.timeout",
                "5s")));
  }

  @BeforeEach
  void start() throws Exception {
    secrets = ApplicationSecrets.of("app", SECRET);
    secrets.put("other", OTHER_SECRET);
    expectations = new ConnectExpectations(TimeUnit.SECONDS.toNanos(5), 3, 2);
    server =
        new ConnectionServer(limits("2s"), secrets, serverMetrics, "127.0.0.1", 0, "127.0.0.1");
    server.serveCalls(
        CallServices.VERBS_ANNOUNCE,
        new AnnouncementService(expectations, () -> CM_PORT, app -> secrets.secretOf(app) != null));
    address = server.address();
    ApplicationSecrets readerSecrets = ApplicationSecrets.of("app", SECRET);
    readerSecrets.put("other", OTHER_SECRET);
    readerSecrets.put("intruder", "wrong-secret-0123456789ab".getBytes(StandardCharsets.UTF_8));
    reader =
        new ConnectionServer(
            limits("2s"), readerSecrets, new TransportMetrics(), "127.0.0.1", 0, "127.0.0.1");
  }

  @AfterEach
  void stop() {
    reader.close();
    server.close();
  }

  private int announce(String app, InetSocketAddress source) throws Exception {
    return AnnouncementService.announce(reader.calls(), address, app, source, 5000);
  }

  private static InetSocketAddress at(String ip, int port) throws Exception {
    return new InetSocketAddress(InetAddress.getByName(ip), port);
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 5000;
    while (!condition.getAsBoolean() && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
  }

  @Test
  void anAuthenticatedAnnouncementAdmitsExactlyOneConnectFromThatSourceAndNamesTheCmPort()
      throws Exception {
    InetSocketAddress source = at("127.0.0.1", 40123);
    assertEquals(CM_PORT, announce("app", source));
    assertEquals("app", expectations.claim(source));
    assertNull(expectations.claim(source), "one announcement admits one connect");
    assertNull(expectations.claim(at("127.0.0.1", 40124)));
  }

  @Test
  void anAnnouncementLeavesFromTheAnnouncedAddress() throws Exception {
    // another loopback address of this host: the call connection is bound to it
    InetSocketAddress source = at("127.0.0.7", 40125);
    assertEquals(CM_PORT, announce("app", source));
    assertEquals("app", expectations.claim(source));
  }

  @Test
  void aWrongSecretAnnouncesNothingAndIsCounted() throws Exception {
    ApplicationSecrets wrong =
        ApplicationSecrets.of("app", "wrong-secret-0123456789ab".getBytes(StandardCharsets.UTF_8));
    try (ConnectionServer intruder =
        new ConnectionServer(
            limits("2s"), wrong, new TransportMetrics(), "127.0.0.1", 0, "127.0.0.1")) {
      assertThrows(
          AuthenticationException.class,
          () ->
              AnnouncementService.announce(
                  intruder.calls(), address, "app", at("127.0.0.1", 40200), 5000));
    }
    assertEquals(0, expectations.size());
    await(() -> serverMetrics.failures(FailureKind.AUTHENTICATION) > 0);
    assertEquals(1, serverMetrics.failures(FailureKind.AUTHENTICATION), "the refusal is counted");
    assertEquals(1, serverMetrics.refusals(Refusal.HANDSHAKE_FAILED));
  }

  @Test
  void anAnnouncementOfAWithdrawnApplicationIsRefusedEvenOnItsOpenConnection() throws Exception {
    assertEquals(CM_PORT, announce("app", at("127.0.0.1", 40170)));
    // withdrawn (its secret gone) while its authenticated CALL connection is still open
    secrets.remove("app");
    CallRefusedException e =
        assertThrows(CallRefusedException.class, () -> announce("app", at("127.0.0.1", 40171)));
    assertEquals(AnnouncementService.WITHDRAWN, e.status(), e.getMessage());
    assertNull(expectations.claim(at("127.0.0.1", 40171)), "nothing announced");
    assertEquals(CM_PORT, announce("other", at("127.0.0.1", 40172)), "others still announce");
  }

  @Test
  void anotherApplicationsPeerCannotTakeOverAnAnnouncement() throws Exception {
    InetSocketAddress source = at("127.0.0.1", 40150);
    announce("app", source);
    CallRefusedException e =
        assertThrows(CallRefusedException.class, () -> announce("other", source));
    assertEquals(AnnouncementService.TAKEN, e.status());
    assertEquals("app", expectations.claim(source), "the announcement still belongs to app");
  }

  @Test
  void anAnnouncementOfAnotherHostsAddressIsRefused() throws Exception {
    // the call comes from 127.0.0.1; it may not speak for 127.0.0.9
    InetSocketAddress elsewhere = at("127.0.0.9", 40160);
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                reader
                    .calls()
                    .call(
                        address,
                        "app",
                        CallServices.VERBS_ANNOUNCE,
                        ConnectLayout.encodeAnnouncement(elsewhere),
                        InetAddress.getByName("127.0.0.1"))
                    .get(5, TimeUnit.SECONDS));
    CallRefusedException refused = assertInstanceOf(CallRefusedException.class, e.getCause());
    assertEquals(AnnouncementService.SOURCE_MISMATCH, refused.status());
    assertNull(expectations.claim(elsewhere));
  }

  @Test
  void announcementsAreBoundedPerPeerAndInTotal() throws Exception {
    announce("app", at("127.0.0.1", 41001));
    announce("app", at("127.0.0.1", 41002));
    CallRefusedException perPeer =
        assertThrows(CallRefusedException.class, () -> announce("app", at("127.0.0.1", 41003)));
    assertEquals(AnnouncementService.PEER_FULL, perPeer.status());
    announce("app", at("127.0.0.2", 41004));
    CallRefusedException total =
        assertThrows(CallRefusedException.class, () -> announce("app", at("127.0.0.3", 41005)));
    assertEquals(AnnouncementService.FULL, total.status());
    assertEquals("app", expectations.claim(at("127.0.0.1", 41001)));
    announce("app", at("127.0.0.3", 41005)); // a claimed one makes room
  }

  @Test
  void aMalformedAnnouncementIsRefusedAsMalformed() throws Exception {
    ByteBuffer bad = ConnectLayout.encodeAnnouncement(at("127.0.0.1", 40170));
    bad.put(ConnectLayout.LENGTH_OFFSET, (byte) 5);
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                reader
                    .calls()
                    .call(address, "app", CallServices.VERBS_ANNOUNCE, bad)
                    .get(5, TimeUnit.SECONDS));
    CallRefusedException refused = assertInstanceOf(CallRefusedException.class, e.getCause());
    assertEquals(CallRefusedException.MALFORMED, refused.status());
    assertTrue(refused.reason().contains("address length=5"), refused.reason());
  }

  @Test
  void anExpiredAnnouncementAdmitsNothing() throws Exception {
    ConnectExpectations quick = new ConnectExpectations(TimeUnit.MILLISECONDS.toNanos(1), 10, 10);
    InetSocketAddress source = at("198.18.100.2", 40300);
    quick.expect(source, "app");
    Thread.sleep(5);
    assertNull(quick.claim(source));
    assertEquals(
        ConnectExpectations.Outcome.ACCEPTED,
        quick.expect(source, "other"),
        "an expired announcement holds its source no more");
  }

  @Test
  void aPeerThatNeverCompletesTheHandshakeIsDisconnectedAndCounted() throws Exception {
    try (SocketChannel ch =
        SocketChannel.open(new InetSocketAddress("127.0.0.1", address.port()))) {
      long t0 = System.nanoTime();
      assertEquals(-1, ch.read(ByteBuffer.allocate(100)), "the server hangs up");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 1500 && ms < 6000, "hung up after " + ms + " ms; the deadline is 2 s");
    }
    await(() -> serverMetrics.refusals(Refusal.HANDSHAKE_TIMEOUT) > 0);
    assertEquals(1, serverMetrics.refusals(Refusal.HANDSHAKE_TIMEOUT));
    assertEquals(1, serverMetrics.failures(FailureKind.AUTHENTICATION));
  }

  @Test
  void aSilentResponderFailsTheAnnouncementWithinTheConnectTimeout() throws Exception {
    try (ServerSocket mute = new ServerSocket(0, 10, InetAddress.getByName("127.0.0.1"))) {
      long t0 = System.nanoTime();
      assertThrows(
          PeerUnreachableException.class,
          () ->
              AnnouncementService.announce(
                  reader.calls(),
                  new PeerAddress("127.0.0.1", mute.getLocalPort()),
                  "app",
                  at("127.0.0.1", 1),
                  10_000));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < 5000, "gave up after " + ms + " ms; the connect timeout is 2 s");
    }
  }

  @Test
  void theAnnouncementLayoutRoundTripsAndRejectsNonsense() throws Exception {
    InetSocketAddress a = at("198.18.100.2", 65535);
    assertEquals(a, ConnectLayout.decodeAnnouncement(ConnectLayout.encodeAnnouncement(a)));
    InetSocketAddress v6 = at("fe80::1", 7);
    assertEquals(v6, ConnectLayout.decodeAnnouncement(ConnectLayout.encodeAnnouncement(v6)));
    assertEquals(4791, ConnectLayout.decodeAnswer(ConnectLayout.encodeAnswer(4791)));
    ByteBuffer bad = ConnectLayout.encodeAnnouncement(a);
    bad.put(0, (byte) 5);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ConnectLayout.decodeAnnouncement(bad));
    assertTrue(e.getMessage().contains("address length=5"), e.getMessage());
  }
}
