/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TcpRelay;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An on-path attacker between an authenticated reader and the responder can neither inject a READ
 * request of its own nor replay one the reader sent: the responder serves neither and closes the
 * connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InjectedFrameTest {
  private static final String APP = "app-inject";
  private static final byte[] SECRET = "inject-secret-0123456789a".getBytes(StandardCharsets.UTF_8);

  private Transport server;
  private Transport client;
  private BufferPool pool;
  private RegisteredRegion region;
  private ByteBuffer memory;

  @BeforeEach
  void start() throws Exception {
    RdmaConf conf =
        RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.transport", "tcp"));
    server =
        Transports.tcp(
            conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", new TransportMetrics());
    client =
        Transports.tcp(
            conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", new TransportMetrics());
    pool = new BufferPool(client.registrar(), 4096, 1 << 20, 16 << 20, true);
    memory = DirectMemory.allocate(1 << 16);
    region =
        server
            .registrar()
            .register(
                MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> DirectMemory.free(memory));
  }

  @AfterEach
  void stop() {
    region.close();
    pool.close();
    client.close();
    server.close();
  }

  /**
   * Connects through {@code relay} and completes one READ, so the stream is past the handshake;
   * returns once the server counted it served (it counts when its send ended, which may be just
   * after the reader saw the bytes), so a later count is the forged request's.
   */
  private ReadChannel connectAndRead(TcpRelay relay) throws Exception {
    long before = server.metrics().readsServed();
    ReadChannel c = client.connect(new PeerAddress("127.0.0.1", relay.port()), APP);
    assertNull(read(c), "the first READ through the relay must succeed");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.metrics().readsServed() == before && System.nanoTime() - deadline < 0) {
      Thread.sleep(5);
    }
    assertEquals(before + 1, server.metrics().readsServed(), "the first READ was counted");
    return c;
  }

  private Exception read(ReadChannel c) throws Exception {
    PooledBuffer b = pool.allocate(100, 10, TimeUnit.SECONDS);
    try {
      ReadResults results = new ReadResults(1);
      c.post(new ReadOp().set(region.address(), region.rkey(), 100, b, 0, results));
      assertTrue(results.await(20, TimeUnit.SECONDS));
      List<?> f = results.failures();
      return f.isEmpty() ? null : (Exception) f.get(0);
    } finally {
      b.release();
    }
  }

  private void awaitClosed(ReadChannel c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (c.isOpen() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }

  @Test
  void anInjectedReadRequestIsNotServedAndClosesTheConnection() throws Exception {
    try (TcpRelay relay = new TcpRelay(server.localAddress().socketAddress())) {
      ReadChannel c = connectAndRead(relay);
      long served = server.metrics().readsServed();
      byte[] sent = relay.sentByClient();
      // the attacker copies the last request the reader sent (it knows rkey and address from
      // it) and changes its id, so it looks like a fresh request
      byte[] forged = Arrays.copyOfRange(sent, sent.length - lastFrameBytes(), sent.length);
      forged[0] ^= 0x7f;
      relay.inject(forged);
      awaitClosed(c);
      assertFalse(c.isOpen(), "the responder kept a connection carrying a forged request");
      assertEquals(served, server.metrics().readsServed(), "the forged READ was served");
      assertEquals(1, server.metrics().refusals(io.rdmashuffle.metrics.Refusal.FRAME_REJECTED));
      c.close();
    }
  }

  @Test
  void aReplayedReadRequestIsNotServedAndClosesTheConnection() throws Exception {
    try (TcpRelay relay = new TcpRelay(server.localAddress().socketAddress())) {
      ReadChannel c = connectAndRead(relay);
      long served = server.metrics().readsServed();
      byte[] sent = relay.sentByClient();
      relay.inject(Arrays.copyOfRange(sent, sent.length - lastFrameBytes(), sent.length));
      awaitClosed(c);
      assertFalse(c.isOpen(), "the responder kept a connection carrying a replayed request");
      assertEquals(served, server.metrics().readsServed(), "the replayed READ was served");
      assertEquals(1, server.metrics().refusals(io.rdmashuffle.metrics.Refusal.FRAME_REJECTED));
      c.close();
    }
  }

  /** Bytes of one READ request frame on the wire. */
  private static int lastFrameBytes() {
    return TcpFrameLayout.REQUEST_BYTES;
  }
}
