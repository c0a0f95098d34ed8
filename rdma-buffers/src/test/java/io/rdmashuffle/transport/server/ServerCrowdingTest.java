/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server that can't be crowded out (issue 22 item 5), on loopback, where every 127.x address is
 * this host's: a CALL peer that never reads its answers is cut off at the send timeout however long
 * it goes on sending, a connection without its first message goes at a short deadline, sources are
 * bounded by prefix (/24), and a full server drops its oldest idle stranger for a newcomer. The
 * floods at scale, from 8 and 64 addresses in network namespaces, are {@code FloodFromManySources}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerCrowdingTest {
  private static final String APP = "app-crowd";
  private static final byte[] SECRET = "crowd-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  private static final int ECHO = 100;
  private static final int ANSWER_64K = 101;

  private final List<AutoCloseable> closeAfter = new ArrayList<>();
  private final TransportMetrics metrics = new TransportMetrics();
  private final AtomicInteger answered = new AtomicInteger();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
  }

  private static ServerLimits limits(String... settings) {
    Map<String, String> m = new HashMap<>();
    m.put("spark.shuffle.rdma.connect.timeout", "30s");
    m.put("spark.shuffle.rdma.read.timeout", "10s");
    for (int i = 0; i < settings.length; i += 2) {
      m.put("spark.shuffle.rdma." + settings[i], settings[i + 1]);
    }
    return ServerLimits.from(RdmaConf.of(TestSchema.SPARK_KEYS, m));
  }

  private ConnectionServer server(String... settings) throws IOException {
    ConnectionServer s =
        new ConnectionServer(
            limits(settings),
            ApplicationSecrets.of(APP, SECRET),
            metrics,
            "127.0.0.1",
            0,
            "127.0.0.1");
    closeAfter.add(s);
    s.serveCalls(ECHO, (app, request) -> ByteBuffer.allocate(4).putInt(7).flip());
    s.serveCalls(
        ANSWER_64K,
        (app, request) -> {
          answered.incrementAndGet();
          return ByteBuffer.allocate(64 << 10);
        });
    return s;
  }

  private ConnectionServer caller() throws IOException {
    ConnectionServer c =
        new ConnectionServer(
            limits(),
            ApplicationSecrets.of(APP, SECRET),
            new TransportMetrics(),
            "127.0.0.1",
            0,
            "127.0.0.1");
    closeAfter.add(c);
    return c;
  }

  /** A call from {@code from}; true when it was answered. */
  private static boolean served(ConnectionServer caller, ConnectionServer server, String from) {
    try {
      caller
          .calls()
          .call(server.address(), APP, ECHO, ByteBuffer.allocate(1), InetAddress.getByName(from))
          .get(20, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** A socket from {@code from} that connected and sends nothing; null when reset at once. */
  private Socket idle(String from, ConnectionServer server) throws IOException {
    Socket s = new Socket();
    closeAfter.add(s);
    s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
    try {
      s.connect(server.address().socketAddress(), 5000);
    } catch (java.net.SocketException reset) {
      return null;
    }
    return s;
  }

  /** Whether the server still holds {@code s} open after {@code millis}. */
  private static boolean open(Socket s, int millis) throws IOException {
    s.setSoTimeout(millis);
    try {
      return s.getInputStream().read() != -1;
    } catch (SocketTimeoutException e) {
      return true;
    } catch (java.net.SocketException reset) {
      return false;
    }
  }

  /** How many of {@code sockets} the server has closed. */
  private static int closed(List<Socket> sockets) {
    int n = 0;
    for (Socket s : sockets) {
      try {
        if (!open(s, 1)) {
          n++;
        }
      } catch (IOException e) {
        n++;
      }
    }
    return n;
  }

  private static void await(BooleanSupplier condition, long millis, String what)
      throws InterruptedException {
    await(condition, millis, () -> what);
  }

  private static void await(BooleanSupplier condition, long millis, Supplier<String> what)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (!condition.getAsBoolean() && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(condition.getAsBoolean(), what);
  }

  @Test
  void theApplicationBoundDefaultsBelowTheTotal() {
    ServerLimits l = limits();
    assertTrue(
        l.maxConnectionsPerApplication() < l.maxConnections(),
        "server.maxConnectionsPerApplication="
            + l.maxConnectionsPerApplication()
            + " lets one application take all "
            + l.maxConnections());
  }

  /**
   * An authenticated CALL peer that sends requests without end and never reads an answer: reading
   * its requests is no send progress, so the send timeout cuts it off, and the answers owed to it
   * stay bounded (the server stops reading it), however fast it sends.
   */
  @Test
  void aCallPeerThatNeverReadsIsCutOffWhileItGoesOnSending() throws Exception {
    ConnectionServer server = server("server.sendTimeout", "1s");
    try (Socket s = new Socket()) {
      s.setReceiveBufferSize(4096);
      s.connect(server.address().socketAddress(), 5000);
      Handshake.Result r = Handshake.client(Handshake.channel(s), APP, SECRET, Purpose.CALL);
      AtomicLong sent = new AtomicLong();
      FrameMac mac = r.clientToServer();
      Thread sender =
          new Thread(
              () -> {
                try {
                  OutputStream out = s.getOutputStream();
                  for (int id = 0; ; id++) {
                    out.write(CallFrameLayout.encode(id, ANSWER_64K, new byte[0], 0, 0, mac));
                    sent.incrementAndGet();
                  }
                } catch (IOException closed) {
                  // the server cut it off
                }
              },
              "never-reading-caller");
      sender.setDaemon(true);
      sender.start();
      await(
          () -> metrics.refusals(Refusal.SEND_TIMEOUT) == 1,
          15_000,
          () ->
              "a peer that never reads was not cut off while it sent " + sent.get() + " requests");
      await(() -> server.connectionCounts()[1] == 0, 5_000, "it still holds its place");
      sender.join(10_000);
      // the server stopped reading it once answers of call.maxAnswerBytes (1 MiB: 16 of them)
      // waited: it answered those, the calls in its workers and what the socket buffers took
      assertTrue(
          answered.get() < 16 + CallService.MAX_IN_FLIGHT_PER_CONNECTION + 200,
          answered.get()
              + " answers of 64 KiB made for a peer that read nothing ("
              + sent.get()
              + " requests sent)");
    }
  }

  /** A connection that sends nothing is closed at the first-message deadline, not at 30 s. */
  @Test
  void aConnectionWithoutItsFirstMessageGoesAtAShortDeadline() throws Exception {
    ConnectionServer server = server("server.firstMessageTimeout", "300ms");
    Socket silent = idle("127.0.0.1", server);
    assertNotNull(silent);
    Socket half = idle("127.0.0.1", server);
    assertNotNull(half);
    half.getOutputStream().write(new byte[] {0x52, 0x44, 0x53}); // part of a HELLO
    long t0 = System.nanoTime();
    assertFalse(open(silent, 5000), "a silent connection was kept");
    assertFalse(open(half, 5000), "a connection with half a HELLO was kept");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < 3000, "closed after " + ms + " ms; the first-message deadline is 300 ms");
    // a caller starved past the 300 ms deadline on a loaded machine is closed like the silent
    // ones: one of a few attempts is served
    ConnectionServer speaking = caller();
    boolean served = false;
    for (int attempt = 0; attempt < 5 && !served; attempt++) {
      served = served(speaking, server, "127.0.0.1");
    }
    assertTrue(served, "a caller that speaks is served");
  }

  /** 8 addresses of one /24 are one source for the handshake bound. */
  @Test
  void theHandshakeBoundCountsAPrefixAsOneSource() throws Exception {
    ConnectionServer server = server("server.maxHandshakesPerSource", "4");
    for (int host = 1; host <= 8; host++) {
      idle("127.0.5." + host, server);
      idle("127.0.5." + host, server);
    }
    await(
        () -> server.connectionCounts()[0] <= 4,
        5_000,
        () -> server.connectionCounts()[0] + " handshakes held by one /24, bound 4");
    assertTrue(served(caller(), server, "127.0.6.1"), "another prefix is served");
  }

  /**
   * Every handshake place strangers may hold (all but the eighth kept for known sources) held by
   * idle ones from 64 prefixes (the first-message deadline far): a newcomer takes the place of the
   * oldest idle one instead of being refused.
   */
  @Test
  void aFullServerDropsItsOldestIdleStrangerForANewcomer() throws Exception {
    ConnectionServer server =
        server(
            "server.maxHandshakes", "64",
            "server.maxHandshakesPerSource", "4",
            "server.firstMessageTimeout", "30s");
    List<Socket> flood = new ArrayList<>();
    for (int p = 1; p <= 64; p++) {
      Socket s = idle("127.0." + (10 + p) + ".1", server);
      if (s != null) {
        flood.add(s);
      }
    }
    await(() -> server.connectionCounts()[0] == 56, 5_000, "the flood did not fill the server");
    ConnectionServer caller = caller();
    for (int i = 0; i < 10; i++) {
      Socket refill = idle("127.0." + (100 + i) + ".1", server); // full again
      if (refill != null) {
        flood.add(refill);
      }
      assertTrue(served(caller, server, "127.0.200." + (1 + i)), "newcomer " + i + " refused");
    }
    // 8 made room for the flood's last 8, 10 for the newcomers (the refills found room they left)
    await(
        () -> closed(flood) >= 18,
        5_000,
        () -> "only " + closed(flood) + " idle strangers were dropped for 18 newcomers");
    assertTrue(
        metrics.refusals(Refusal.HANDSHAKES) >= 18, "the dropped strangers were not counted");
  }
}
