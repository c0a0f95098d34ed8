/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportContractTest;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.HandshakeLayout;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The transport contract on tcp over loopback, plus faults only a software peer can stage. */
class TcpTransportTest extends TransportContractTest {
  @Override
  protected TransportKind kind() {
    return TransportKind.TCP;
  }

  @Override
  protected String serverHost() {
    return "127.0.0.1";
  }

  @Override
  protected String clientHost() {
    return "127.0.0.1";
  }

  /**
   * A READ posted after {@code withdrawApplication} returned is never served: the I/O thread runs
   * the withdrawal before it handles what became ready with it. Repeated, because the READ's
   * request and the withdrawal reach the I/O thread in one wake-up only some of the time.
   */
  @Test
  void aReadPostedAfterTheWithdrawalIsNeverServed() throws Exception {
    RegisteredRegion mine = serveMemory(MIB, 16, APP);
    for (int i = 0; i < 40; i++) {
      ReadChannel a = client.connect(server.localAddress(), APP);
      Outcome before = readOnce(a, mine.address(), mine.rkey(), 100);
      assertNull(before.failure());
      before.buffer().release();
      server.withdrawApplication(APP);
      Outcome after = readOnce(a, mine.address(), mine.rkey(), 100);
      try {
        assertNotNull(after.failure(), "round " + i + ": a READ after the withdrawal was served");
      } finally {
        after.buffer().release();
        a.close();
      }
    }
  }

  @Test
  void aClientThatSendsGarbageGetsNoByteAndIsDisconnected() throws Exception {
    RegisteredRegion r = serveMemory(4096, 20, APP);
    try (Socket s = new Socket()) {
      s.connect(server.localAddress().socketAddress(), 5000);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      ByteBuffer frame = ByteBuffer.allocate(48);
      // a READ request without any handshake
      frame.putInt(0).putInt(r.rkey()).putInt(4096).putInt(0).putLong(r.address());
      out.write(frame.array());
      out.flush();
      InputStream in = s.getInputStream();
      int n;
      try {
        n = in.read(new byte[8192]);
      } catch (java.net.SocketException reset) {
        n = -1; // the responder hung up with our request unread: a reset, and no byte
      }
      assertEquals(-1, n, "responder answered a peer that never authenticated");
    }
  }

  @Test
  void aClientThatNeverAuthenticatesIsDisconnectedAfterTheConnectTimeout() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(server.localAddress().socketAddress(), 5000);
      s.setSoTimeout(15000);
      // its first message in time (else it goes at server.firstMessageTimeout), then nothing
      byte[] nonce = new byte[HandshakeLayout.NONCE_BYTES];
      new java.security.SecureRandom().nextBytes(nonce);
      ByteBuffer hello = HandshakeLayout.encodeHello(Purpose.READ.code(), nonce, new byte[] {'a'});
      s.getOutputStream().write(hello.array(), hello.position(), hello.remaining());
      s.getInputStream().readNBytes(HandshakeLayout.CHALLENGE_BYTES);
      long t0 = System.nanoTime();
      assertEquals(-1, s.getInputStream().read(), "expected the responder to hang up");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 4000 && ms < 12000, "hung up after " + ms + " ms, connect timeout is 5s");
    }
  }

  @Test
  void aPeerThatNeverAnswersAReadTimesOut() throws Exception {
    try (ServerSocketChannel silent = ServerSocketChannel.open()) {
      silent.bind(new InetSocketAddress("127.0.0.1", 0));
      Thread acceptor =
          new Thread(
              () -> {
                try (SocketChannel ch = silent.accept()) {
                  Handshake.server(ch, ApplicationSecrets.of(APP, SECRET));
                  ch.read(ByteBuffer.allocate(1 << 16));
                  Thread.sleep(60_000);
                } catch (Exception e) {
                  // the test closes the socket when done
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      PeerAddress peer =
          new PeerAddress("127.0.0.1", ((InetSocketAddress) silent.getLocalAddress()).getPort());
      ReadChannel c = client.connect(peer, APP);
      closeAfter.add(c);
      PooledBuffer b = pool.allocate(4096, 1, TimeUnit.SECONDS);
      try {
        ReadResults results = new ReadResults(3);
        for (int i = 0; i < 3; i++) {
          c.post(new ReadOp().set(1L << 32, 1, 1000, b, i * 1000, results));
        }
        long t0 = System.nanoTime();
        assertTrue(results.await(15, TimeUnit.SECONDS), "READs to a silent peer hung");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 4500, "timed out after " + ms + " ms, read timeout is 5s");
        List<TransportException> failures = results.failures();
        assertEquals(3, failures.size());
        // READs past the timeout fail as timeouts; any not yet past it when the connection was
        // closed for that reason fail as connection lost, caused by the timeout
        assertTrue(failures.stream().anyMatch(ReadTimeoutException.class::isInstance));
        for (TransportException e : failures) {
          assertTrue(
              e instanceof ReadTimeoutException || e.getCause() instanceof ReadTimeoutException,
              "unexpected " + e);
          assertEquals(peer, e.peer());
        }
        assertFalse(c.isOpen());
      } finally {
        b.release();
      }
    }
  }

  @Test
  void aPeerThatAcceptsButNeverHandshakesFailsWithinTheConnectTimeout() throws Exception {
    try (ServerSocket mute = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
      long t0 = System.nanoTime();
      TransportException e =
          assertThrows(
              TransportException.class,
              () -> client.connect(new PeerAddress("127.0.0.1", mute.getLocalPort()), APP));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertInstanceOf(PeerUnreachableException.class, e);
      assertTrue(ms >= 4500 && ms < 10000, "gave up after " + ms + " ms, connect timeout is 5s");
    }
  }

  /** Bytes allocated so far by every live thread whose name starts with {@code prefix}. */
  private static long allocatedBy(String prefix) {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(prefix)) {
        sum += mx.getThreadAllocatedBytes(t.getId());
      }
    }
    return sum;
  }

  @Test
  void theReadPathAllocatesNothingPerRequest() throws Exception {
    RegisteredRegion r = serveMemory(1 << 20, 22, APP);
    ReadChannel c = connect();
    PooledBuffer b = pool.allocate(64 * 1024, 1, TimeUnit.SECONDS);
    try {
      int window = 16;
      ReadOp[] ops = new ReadOp[window];
      for (int round = 0; round < 2; round++) {
        int total = round == 0 ? 2000 : 20000;
        java.util.concurrent.atomic.AtomicInteger next =
            new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(total);
        io.rdmashuffle.transport.ReadListener again =
            new io.rdmashuffle.transport.ReadListener() {
              @Override
              public void onReadComplete(ReadOp op) {
                done.countDown();
                if (next.getAndIncrement() < total - window) {
                  c.post(op);
                }
              }

              @Override
              public void onReadFailed(ReadOp op, io.rdmashuffle.transport.TransportException e) {
                fail(e);
              }
            };
        for (int i = 0; i < window; i++) {
          ops[i] =
              new ReadOp()
                  .set(r.address() + i * 4096L, r.rkey(), i % 2 == 0 ? 100 : 40_000, b, 0, again);
        }
        long before = allocatedBy("rdma-tcp-recv") + allocatedBy("rdma-io-");
        for (ReadOp op : ops) {
          c.post(op);
        }
        assertTrue(done.await(60, TimeUnit.SECONDS));
        long perRead = (allocatedBy("rdma-tcp-recv") + allocatedBy("rdma-io-") - before) / total;
        if (round == 1) {
          // round 0 warms up (JIT, first-use tables); then small and large READs, served and
          // received, must not allocate: a few bytes per READ allow for JIT and JFR noise only
          assertTrue(perRead < 8, perRead + " bytes allocated per READ on transport threads");
        }
      }
    } finally {
      b.release();
    }
  }

  @Test
  void postingOnAClosedChannelFailsTheReadAtOnce() throws Exception {
    RegisteredRegion r = serveMemory(4096, 21, APP);
    ReadChannel c = connect();
    c.close();
    PooledBuffer b = pool.allocate(100, 1, TimeUnit.SECONDS);
    try {
      ReadResults results = new ReadResults(1);
      c.post(new ReadOp().set(r.address(), r.rkey(), 100, b, 0, results));
      assertTrue(results.await(5, TimeUnit.SECONDS));
      assertEquals(1, results.failures().size());
    } finally {
      b.release();
    }
  }
}
