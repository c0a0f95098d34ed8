/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.TcpRelay;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connection server's bounds, timeouts and calls, on loopback, with small limits set per test.
 * Raw sockets play the hostile or stalled peers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectionServerTest {
  private static final String APP = "app-server";
  private static final byte[] SECRET =
      "server-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  private static final int ECHO = 100;
  private static final int BIG = 101;

  private final List<AutoCloseable> closeAfter = new ArrayList<>();
  private final TransportMetrics metrics = new TransportMetrics();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
  }

  private static ApplicationSecrets secrets() {
    ApplicationSecrets s = ApplicationSecrets.of(APP, SECRET);
    for (String app : List.of("app-a", "app-b", "app-c", "app-d")) {
      s.put(app, SECRET);
    }
    return s;
  }

  private static ServerLimits limits(String... settings) {
    Map<String, String> m = new HashMap<>();
    m.put("spark.shuffle.rdma.connect.timeout", "3s");
    m.put("spark.shuffle.rdma.read.timeout", "5s");
    for (int i = 0; i < settings.length; i += 2) {
      m.put("spark.shuffle.rdma." + settings[i], settings[i + 1]);
    }
    return ServerLimits.from(RdmaConf.of(TestSchema.SPARK_KEYS, m));
  }

  /**
   * A server with an echo service and a service answering 8 MiB (more than socket buffers hold).
   */
  private ConnectionServer server(String... settings) throws IOException {
    ConnectionServer s =
        new ConnectionServer(limits(settings), secrets(), metrics, "127.0.0.1", 0, "127.0.0.1");
    closeAfter.add(s);
    s.serveCalls(
        ECHO,
        (app, request) -> {
          ByteBuffer a = ByteBuffer.allocate(app.length() + 1 + request.remaining());
          return a.put(app.getBytes(StandardCharsets.UTF_8)).put((byte) ':').put(request).flip();
        });
    s.serveCalls(BIG, (app, request) -> ByteBuffer.allocate(8 << 20));
    return s;
  }

  private ConnectionServer caller(String... settings) throws IOException {
    ConnectionServer c =
        new ConnectionServer(
            limits(settings), secrets(), new TransportMetrics(), "127.0.0.1", 0, "127.0.0.1");
    closeAfter.add(c);
    return c;
  }

  private static String echo(
      ConnectionServer caller, ConnectionServer server, String app, String from) throws Exception {
    ByteBuffer a =
        caller
            .calls()
            .call(
                server.address(),
                app,
                ECHO,
                ByteBuffer.wrap("ping".getBytes(StandardCharsets.UTF_8)),
                from == null ? null : InetAddress.getByName(from))
            .get(20, TimeUnit.SECONDS);
    return StandardCharsets.UTF_8.decode(a).toString();
  }

  private static Throwable failure(CompletableFuture<?> f) throws Exception {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
    return e.getCause();
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (!condition.getAsBoolean() && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(condition.getAsBoolean(), what);
  }

  /** Opens a socket from {@code from}; whether the server keeps it (true) or drops it at once. */
  private static boolean kept(Socket s, String from, PeerAddress to) throws IOException {
    s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
    try {
      s.connect(to.socketAddress(), 5000);
      s.setSoTimeout(300);
      return s.getInputStream().read() != -1;
    } catch (SocketTimeoutException e) {
      return true; // still open, waiting for our handshake
    } catch (java.net.SocketException e) {
      return false; // reset
    }
  }

  // ---------------------------------------------------------------- accepting

  @Test
  void anyErrorWhileAcceptingClosesThatConnectionAndAcceptingGoesOn() throws Exception {
    ConnectionServer server = server();
    AtomicInteger thrown = new AtomicInteger();
    server.onAccept(
        ch -> {
          switch (thrown.getAndIncrement()) {
            case 0, 1 -> throw new OutOfMemoryError("injected: Direct buffer memory");
            case 2 -> throw new IllegalStateException("injected");
            case 3 -> throw new StackOverflowError("injected");
            default -> {}
          }
        });
    ConnectionServer caller = caller();
    for (int i = 0; i < 4; i++) {
      try (Socket s = new Socket()) {
        s.connect(server.address().socketAddress(), 5000);
        assertTrue(closedByServer(s), "connection " + i + " was kept");
      }
    }
    assertEquals("app-a:ping", echo(caller, server, "app-a", null), "the server no longer serves");
    assertEquals(4, metrics.refusals(Refusal.ACCEPT_FAILED));
    await(() -> server.connectionCounts()[0] == 0, "a failed accept kept a handshake place");
  }

  /**
   * Handshakes are bounded per source (a /24 for strangers) and in total; at a bound a newcomer
   * takes the place of the handshake idle longest, which the server closes and counts.
   */
  @Test
  void handshakesAreBoundedPerSourceAndInTotal() throws Exception {
    ConnectionServer server =
        server(
            "server.maxHandshakesPerSource",
            "2",
            "server.maxHandshakes",
            "3",
            "connect.timeout",
            "30s",
            "server.firstMessageTimeout",
            "30s");
    List<Socket> sockets = new ArrayList<>();
    try {
      for (String from : List.of("127.0.7.2", "127.0.7.2")) {
        Socket s = new Socket();
        sockets.add(s);
        assertTrue(kept(s, from, server.address()));
      }
      Socket third = new Socket();
      sockets.add(third);
      assertTrue(kept(third, "127.0.7.3", server.address()), "a newcomer of a full /24");
      assertTrue(closedByServer(sockets.get(0)), "the /24's handshake idle longest stays");
      assertEquals(1, metrics.refusals(Refusal.HANDSHAKES_PER_SOURCE));
      assertEquals(2, server.connectionCounts()[0]);
      Socket other = new Socket();
      sockets.add(other);
      assertTrue(kept(other, "127.0.8.3", server.address()));
      Socket fourth = new Socket();
      sockets.add(fourth);
      assertTrue(kept(fourth, "127.0.9.4", server.address()), "a newcomer of a full server");
      assertTrue(closedByServer(sockets.get(1)), "the handshake idle longest stays");
      assertEquals(1, metrics.refusals(Refusal.HANDSHAKES));
      assertEquals(3, server.connectionCounts()[0]);
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
    await(() -> server.connectionCounts()[0] == 0, "closed handshakes still hold their places");
    assertEquals("app-a:ping", echo(caller(), server, "app-a", null));
  }

  /** Whether the server closed {@code s} (a read ends or is reset within 10 s). */
  private static boolean closedByServer(Socket s) throws IOException {
    s.setSoTimeout(10_000);
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (java.net.SocketException reset) {
      return true;
    }
  }

  @Test
  void authenticatedConnectionsAreBoundedPerApplicationPerSourceAndInTotal() throws Exception {
    ConnectionServer server =
        server(
            "server.maxConnectionsPerApplication",
            "1",
            "server.maxConnectionsPerSource",
            "2",
            "server.maxConnections",
            "3");
    ConnectionServer caller = caller();
    assertEquals("app-a:ping", echo(caller, server, "app-a", "127.0.0.1"));
    Throwable busyApp =
        failure(
            caller
                .calls()
                .call(
                    server.address(),
                    "app-a",
                    ECHO,
                    ByteBuffer.allocate(1),
                    InetAddress.getByName("127.0.0.2")));
    assertInstanceOf(PeerUnreachableException.class, busyApp);
    assertEquals(Handshake.Refused.Reason.BUSY, ((Handshake.Refused) busyApp.getCause()).reason());
    assertEquals(1, metrics.refusals(Refusal.CONNECTIONS_PER_APPLICATION));

    assertEquals("app-b:ping", echo(caller, server, "app-b", "127.0.0.1"));
    assertInstanceOf(
        PeerUnreachableException.class,
        failure(
            caller
                .calls()
                .call(
                    server.address(),
                    "app-c",
                    ECHO,
                    ByteBuffer.allocate(1),
                    InetAddress.getByName("127.0.0.1"))));
    assertEquals(1, metrics.refusals(Refusal.CONNECTIONS_PER_SOURCE));

    assertEquals("app-c:ping", echo(caller, server, "app-c", "127.0.0.2"));
    assertInstanceOf(
        PeerUnreachableException.class,
        failure(
            caller
                .calls()
                .call(
                    server.address(),
                    "app-d",
                    ECHO,
                    ByteBuffer.allocate(1),
                    InetAddress.getByName("127.0.0.3"))));
    assertEquals(1, metrics.refusals(Refusal.CONNECTIONS));
    assertEquals(3, server.connectionCounts()[1]);
  }

  // ---------------------------------------------------------------- timeouts

  @Test
  void anIdleConnectionIsClosedByTheServer() throws Exception {
    ConnectionServer server = server("server.idleTimeout", "500ms");
    // before the connection exists: the server's idle clock can't start earlier
    long t0 = System.nanoTime();
    try (SocketChannel ch = SocketChannel.open(server.address().socketAddress())) {
      Handshake.client(ch, "app-a", SECRET, Purpose.CALL);
      assertEquals(-1, ch.read(ByteBuffer.allocate(1)), "the server keeps an idle connection");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 450, "closed after " + ms + " ms; the idle timeout is 500 ms");
    }
    assertEquals(1, metrics.refusals(Refusal.IDLE));
    await(() -> server.connectionCounts()[1] == 0, "the idle connection still holds its place");
  }

  @Test
  void aCallerClosesItsIdleConnectionBeforeTheServerWould() throws Exception {
    // the server would close it after 10 s, the caller closes it after half its own 1 s
    ConnectionServer server = server("server.idleTimeout", "10s");
    ConnectionServer caller = caller("server.idleTimeout", "1s");
    assertEquals("app-a:ping", echo(caller, server, "app-a", null));
    await(() -> caller.calls().connections() == 0, "the caller kept its idle connection");
    assertEquals(0, metrics.refusals(Refusal.IDLE), "the server had to close it");
    assertEquals("app-a:ping", echo(caller, server, "app-a", null), "a new call opens a new one");
  }

  @Test
  void aPeerThatStopsReadingIsCutOffAtTheSendTimeout() throws Exception {
    ConnectionServer server = server("server.sendTimeout", "1s", "call.maxAnswerBytes", "16m");
    try (SocketChannel ch = SocketChannel.open()) {
      ch.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
      ch.connect(server.address().socketAddress());
      Handshake.Result r = Handshake.client(ch, "app-a", SECRET, Purpose.CALL);
      byte[] frame = CallFrameLayout.encode(7, BIG, new byte[0], 0, 0, r.clientToServer());
      ch.write(ByteBuffer.wrap(frame));
      long t0 = System.nanoTime();
      await(() -> metrics.refusals(Refusal.SEND_TIMEOUT) == 1, "the stalled send was not cut off");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 800, "cut off after " + ms + " ms; the send timeout is 1 s");
      await(
          () -> server.connectionCounts()[1] == 0, "the stalled connection still holds its place");
    }
  }

  // ---------------------------------------------------------------- calls

  @Test
  void callsRoundTripAndRefusalsCarryTheirStatusAndReason() throws Exception {
    ConnectionServer server = server();
    server.serveCalls(
        102,
        (app, request) -> {
          throw new CallRefusedException(
              CallRefusedException.FIRST_SERVICE_STATUS + 3, "no such output");
        });
    server.serveCalls(103, (app, request) -> ByteBuffer.allocate((1 << 20) + 1));
    ConnectionServer caller = caller();
    assertEquals("app-a:ping", echo(caller, server, "app-a", null));
    CallRefusedException own =
        assertInstanceOf(
            CallRefusedException.class,
            failure(caller.calls().call(server.address(), "app-a", 102, ByteBuffer.allocate(3))));
    assertEquals(CallRefusedException.FIRST_SERVICE_STATUS + 3, own.status());
    assertEquals("no such output", own.reason());
    assertEquals(server.address(), own.peer());
    CallRefusedException unknown =
        assertInstanceOf(
            CallRefusedException.class,
            failure(caller.calls().call(server.address(), "app-a", 4242, ByteBuffer.allocate(3))));
    assertEquals(CallRefusedException.UNKNOWN_SERVICE, unknown.status());
    CallRefusedException large =
        assertInstanceOf(
            CallRefusedException.class,
            failure(caller.calls().call(server.address(), "app-a", 103, ByteBuffer.allocate(3))));
    assertEquals(CallRefusedException.TOO_LARGE, large.status());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            caller
                .calls()
                .call(server.address(), "app-a", ECHO, ByteBuffer.allocate((64 << 10) + 1)));
    assertEquals(1, caller.calls().connections(), "every call shared one pooled connection");
    assertEquals("app-a:ping", echo(caller, server, "app-a", null), "refusals keep the connection");
  }

  @Test
  void aFullWorkerQueueAnswersBusyInsteadOfQueueingWithoutBound() throws Exception {
    ConnectionServer server = server("call.workers", "1", "call.queue", "1");
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    server.serveCalls(
        104,
        (app, request) -> {
          started.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return ByteBuffer.allocate(1);
        });
    ConnectionServer caller = caller();
    CompletableFuture<ByteBuffer> running =
        caller.calls().call(server.address(), "app-a", 104, ByteBuffer.allocate(1));
    assertTrue(started.await(20, TimeUnit.SECONDS));
    CompletableFuture<ByteBuffer> queued =
        caller.calls().call(server.address(), "app-a", 104, ByteBuffer.allocate(1));
    Thread.sleep(200); // let the second reach the queue
    CallRefusedException busy =
        assertInstanceOf(
            CallRefusedException.class,
            failure(caller.calls().call(server.address(), "app-a", 104, ByteBuffer.allocate(1))));
    assertTrue(busy.isBusy(), busy.getMessage());
    assertEquals(1, metrics.refusals(Refusal.CALLS_BUSY));
    release.countDown();
    assertEquals(1, running.get(20, TimeUnit.SECONDS).remaining());
    assertEquals(1, queued.get(20, TimeUnit.SECONDS).remaining());
  }

  @Test
  void aCallWithoutAnswerTimesOutAndItsConnectionIsReplaced() throws Exception {
    ConnectionServer server = server();
    java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
    server.serveCalls(
        105,
        (app, request) -> {
          try {
            answer.await(30, TimeUnit.SECONDS); // no answer until the test has its timeout
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return ByteBuffer.allocate(1);
        });
    try {
      ConnectionServer caller = caller("read.timeout", "1s");
      long t0 = System.nanoTime();
      Throwable t =
          failure(caller.calls().call(server.address(), "app-a", 105, ByteBuffer.allocate(1)));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertInstanceOf(ReadTimeoutException.class, t);
      assertTrue(ms >= 900 && ms < 15_000, "timed out after " + ms + " ms; the timeout is 1 s");
      assertEquals("app-a:ping", echo(caller, server, "app-a", null));
    } finally {
      answer.countDown();
    }
  }

  @Test
  void callsWithoutASecretOrToNobodyFailTyped() throws Exception {
    ConnectionServer caller = caller();
    assertInstanceOf(
        AuthenticationException.class,
        failure(
            caller
                .calls()
                .call(
                    new PeerAddress("127.0.0.1", 1),
                    "app-without-secret",
                    ECHO,
                    ByteBuffer.allocate(1))));
    int port;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    assertInstanceOf(
        PeerUnreachableException.class,
        failure(
            caller
                .calls()
                .call(new PeerAddress("127.0.0.1", port), "app-a", ECHO, ByteBuffer.allocate(1))));
  }

  @Test
  void anInjectedOrReplayedCallFrameIsNotRunAndClosesTheConnection() throws Exception {
    ConnectionServer server = server();
    AtomicInteger runs = new AtomicInteger();
    server.serveCalls(
        106,
        (app, request) -> {
          runs.incrementAndGet();
          return ByteBuffer.allocate(1);
        });
    ConnectionServer caller = caller();
    try (TcpRelay relay = new TcpRelay(server.address().socketAddress())) {
      PeerAddress via = new PeerAddress("127.0.0.1", relay.port());
      caller.calls().call(via, "app-a", 106, ByteBuffer.allocate(5)).get(20, TimeUnit.SECONDS);
      byte[] sent = relay.sentByClient();
      int frame = CallFrameLayout.frameBytes(5);
      relay.inject(java.util.Arrays.copyOfRange(sent, sent.length - frame, sent.length));
      await(() -> metrics.refusals(Refusal.FRAME_REJECTED) == 1, "the replayed frame was accepted");
      assertEquals(1, runs.get(), "the replayed call ran");
    }
  }

  @Test
  void closingTheServerEndsItsThreadsAndReleasesItsSockets() throws Exception {
    int fds = io.rdmashuffle.testing.FileDescriptors.open();
    ConnectionServer server = server();
    String suffix = "-" + server.address().port();
    ConnectionServer caller = caller();
    assertEquals("app-a:ping", echo(caller, server, "app-a", null));
    server.close();
    caller.close();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      assertFalse(
          t.isAlive()
              && (t.getName().startsWith("rdma-io" + suffix)
                  || t.getName().equals("rdma-accept" + suffix)),
          "thread " + t.getName() + " lives on");
    }
    int after = io.rdmashuffle.testing.FileDescriptors.awaitAtMost(fds, 5000);
    assertTrue(after <= fds, "descriptors: " + fds + " before, " + after + " after");
  }
}
