/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.RawPeer;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.CallServices;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.HandshakeLayout;
import io.rdmashuffle.transport.verbs.AnnouncementService;
import io.rdmashuffle.transport.verbs.ConnectExpectations;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A serving process for hostile-input tests (tcp READ responder, calls, the verbs announcement
 * service through calls), the counts of cases tried and refused, and the check that after each test
 * a real reader still READs and calls correctly. Subclasses hold the cases.
 */
abstract class HostileServerFixture {
  /** Cases tried and how each was refused, per test class; printed after the class. */
  static final class Figures {
    private final String name;
    private final Map<String, AtomicInteger> outcomes = new TreeMap<>();
    final AtomicInteger servedAfter = new AtomicInteger();

    Figures(String name) {
      this.name = name;
    }

    synchronized void refused(String how) {
      outcomes.computeIfAbsent(how, k -> new AtomicInteger()).incrementAndGet();
    }

    synchronized void print() {
      int n = outcomes.values().stream().mapToInt(AtomicInteger::get).sum();
      System.out.printf(
          "hostile inputs (%s): %d cases tried, each refused as asserted, by outcome"
              + " %s; a real reader READ and called correctly after each of %d tests%n",
          name, n, outcomes, servedAfter.get());
    }
  }

  abstract Figures figures();

  static final String APP = "app-hostile";
  static final String OTHER = "app-other";
  static final byte[] SECRET = "hostile-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  static final byte[] OTHER_SECRET = "other-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  static final byte[] WRONG = "wrong-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  static final int ECHO = 100;
  static final int REGION = 64 * 1024;

  Transport server;
  Transport client;
  BufferPool pool;
  RegisteredRegion region;
  RegisteredRegion foreign;
  RegisteredRegion stale;
  PeerAddress address;

  @BeforeEach
  void start() throws Exception {
    RdmaConf conf =
        RdmaConf.of(
            TestSchema.SPARK_KEYS,
            Map.of(
                "spark.shuffle.rdma.transport",
                "tcp",
                "spark.shuffle.rdma.connect.timeout",
                "2s",
                "spark.shuffle.rdma.server.idleTimeout",
                "2s"));
    ApplicationSecrets secrets = ApplicationSecrets.of(APP, SECRET);
    secrets.put(OTHER, OTHER_SECRET);
    server = TransportSelector.standard().start(conf, secrets, "127.0.0.1", new TransportMetrics());
    client =
        TransportSelector.standard()
            .start(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", new TransportMetrics());
    pool = new BufferPool(client.registrar(), 4096, 1 << 20, 16 << 20, true);
    server.serveCalls(
        ECHO, (app, request) -> ByteBuffer.allocate(request.remaining()).put(request).flip());
    server.serveCalls(
        CallServices.VERBS_ANNOUNCE,
        new AnnouncementService(
            new ConnectExpectations(TimeUnit.SECONDS.toNanos(10), 100, 10),
            () -> 4791,
            app -> secrets.secretOf(app) != null));
    region = serve(APP, 1);
    foreign = serve(OTHER, 2);
    stale = serve(APP, 3);
    stale.close();
    address = server.localAddress();
  }

  private RegisteredRegion serve(String owner, int seed) throws Exception {
    ByteBuffer memory = DirectMemory.allocate(REGION);
    Patterns.fill(memory, 0, seed);
    return server
        .registrar()
        .register(
            MemoryPiece.of(memory), Access.REMOTE_READ, owner, () -> DirectMemory.free(memory));
  }

  @AfterEach
  void stop() throws Exception {
    try {
      assertStillServes();
    } finally {
      region.close();
      foreign.close();
      pool.close();
      client.close();
      server.close();
    }
  }

  /** One case tried and refused as {@code how} (its assertions held). */
  void refused(String how) {
    figures().refused(how);
  }

  /** A real reader READs and calls correctly: the server still serves. */
  void assertStillServes() throws Exception {
    ReadChannel c = client.connect(address, APP);
    try {
      PooledBuffer b = pool.allocate(1000, 10, TimeUnit.SECONDS);
      try {
        ReadResults results = new ReadResults(1);
        c.post(new ReadOp().set(region.address() + 10, region.rkey(), 1000, b, 0, results));
        assertTrue(results.await(30, TimeUnit.SECONDS));
        assertEquals(List.of(), results.failures());
        assertEquals(-1, Patterns.firstMismatch(b.buffer(), 0, 1000, 10, 1));
      } finally {
        b.release();
      }
    } finally {
      c.close();
    }
    ByteBuffer a =
        client
            .call(address, APP, ECHO, ByteBuffer.wrap(new byte[] {1, 2, 3}))
            .get(30, TimeUnit.SECONDS);
    assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3}), a);
    figures().servedAfter.incrementAndGet();
  }

  long refusals(Refusal r) {
    return server.metrics().refusals(r);
  }

  void awaitRefusals(Refusal r, long expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (refusals(r) < expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(expected, refusals(r), "refusals counted as " + r);
  }

  static byte[] request(int id, int rkey, int length, long address, FrameMac mac) {
    byte[] f = new byte[REQUEST_BYTES];
    encodeRequest(f, 0, id, rkey, length, address, mac);
    return f;
  }

  static ResponseHeader header(ByteBuffer b) {
    ResponseHeader h = new ResponseHeader();
    decodeResponseHeader(b, 0, h);
    return h;
  }

  static ByteBuffer hello(int purpose, byte[] nonce, String app) {
    return HandshakeLayout.encodeHello(purpose, nonce, app.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] nonce(Random r) {
    byte[] n = new byte[HandshakeLayout.NONCE_BYTES];
    r.nextBytes(n);
    return n;
  }

  /** Sends {@code bytes} on a fresh connection; the server must close it without a byte. */
  void closedSilently(String how, byte[] bytes, Refusal counted) throws Exception {
    long before = refusals(counted);
    try (RawPeer r = new RawPeer(address)) {
      r.send(bytes);
      assertTrue(r.closedWithin(5000), how + ": the connection stayed open or was answered");
    }
    awaitRefusals(counted, before + 1);
    refused(how);
  }

  /** Sends a HELLO; the server must answer with a challenge of {@code status} and close. */
  void challengedWith(String how, ByteBuffer hello, int status) throws Exception {
    long before = refusals(Refusal.HANDSHAKE_FAILED);
    try (RawPeer r = new RawPeer(address)) {
      r.send(hello);
      // a version refusal is as long as versions 1 and 2 read a CHALLENGE
      ByteBuffer c =
          r.read(
              status == HandshakeLayout.STATUS_BAD_VERSION
                  ? HandshakeLayout.LEGACY_CHALLENGE_BYTES
                  : HandshakeLayout.CHALLENGE_BYTES);
      assertNotNull(c, how + ": no challenge");
      assertEquals(status, HandshakeLayout.decodeChallenge(c).status(), how);
      assertTrue(r.closedWithin(5000), how + ": the connection stayed open");
    }
    awaitRefusals(Refusal.HANDSHAKE_FAILED, before + 1);
    refused(how);
  }
}
