package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The verbs transport's authentication step, which needs no RDMA device. */
@Timeout(30)
class ControlServerTest {
  private static final byte[] SECRET = "control-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final ConnectExpectations expectations = new ConnectExpectations(TimeUnit.SECONDS.toNanos(5));
  private final AtomicInteger refused = new AtomicInteger();
  private ControlServer server;
  private PeerAddress address;

  @BeforeEach
  void start() throws Exception {
    server = new ControlServer("127.0.0.1", 0, ApplicationSecrets.of("app", SECRET), expectations,
        timer, 2000, refused::incrementAndGet);
    address = new PeerAddress("127.0.0.1", server.port());
  }

  @AfterEach
  void stop() {
    server.close();
    timer.shutdownNow();
  }

  @Test
  void anAuthenticatedAnnouncementAdmitsExactlyOneConnectFromThatSource() throws Exception {
    InetSocketAddress source = new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 40123);
    try (SocketChannel ch = ControlServer.announce(address, "app", SECRET, source, timer, 2000)) {
      assertTrue(ch.isOpen());
    }
    assertEquals("app", expectations.claim(source));
    assertNull(expectations.claim(source), "one announcement admits one connect");
    assertNull(expectations.claim(new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 40124)));
  }

  @Test
  void aWrongSecretAnnouncesNothing() throws Exception {
    InetSocketAddress source = new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 40200);
    byte[] wrong = "wrong-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
    assertThrows(AuthenticationException.class,
        () -> ControlServer.announce(address, "app", wrong, source, timer, 2000));
    assertEquals(0, expectations.size());
    long deadline = System.currentTimeMillis() + 5000;
    while (refused.get() == 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(1, refused.get(), "the refusal is counted");
  }

  @Test
  void anExpiredAnnouncementAdmitsNothing() throws Exception {
    ConnectExpectations quick = new ConnectExpectations(TimeUnit.MILLISECONDS.toNanos(1));
    InetSocketAddress source = new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 40300);
    quick.expect(source, "app");
    Thread.sleep(5);
    assertNull(quick.claim(source));
  }

  @Test
  void aPeerThatNeverCompletesTheHandshakeIsDisconnectedAndCounted() throws Exception {
    try (SocketChannel ch = SocketChannel.open(address.socketAddress())) {
      ch.configureBlocking(true);
      assertEquals(-1, ch.read(ByteBuffer.allocate(100)), "the control port hangs up");
    }
    long deadline = System.currentTimeMillis() + 5000;
    while (refused.get() == 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(1, refused.get());
  }

  @Test
  void aSilentResponderFailsTheAnnouncementWithinTheTimeout() throws Exception {
    try (ServerSocket mute = new ServerSocket(0, 10, InetAddress.getByName("127.0.0.1"))) {
      long t0 = System.nanoTime();
      assertThrows(PeerUnreachableException.class, () -> ControlServer.announce(
          new PeerAddress("127.0.0.1", mute.getLocalPort()), "app", SECRET,
          new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 1), timer, 1000));
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
    }
  }

  @Test
  void theAnnouncementLayoutRoundTripsAndRejectsNonsense() throws Exception {
    InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.77.0.2"), 65535);
    assertEquals(a, ConnectLayout.readExpect(ConnectLayout.expect(a)));
    InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fe80::1"), 7);
    assertEquals(v6, ConnectLayout.readExpect(ConnectLayout.expect(v6)));
    ByteBuffer bad = ConnectLayout.expect(a);
    bad.put(0, (byte) 5);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ConnectLayout.readExpect(bad));
    assertTrue(e.getMessage().contains("address length=5"), e.getMessage());
  }
}
