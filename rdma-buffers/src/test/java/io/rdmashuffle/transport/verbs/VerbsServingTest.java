/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The verbs serving side's own rules, on real verbs in the Soft-RoCE guest: an application's served
 * queue pairs go when it is withdrawn, when their reader goes away and when their reader's host
 * vanishes without a word (the liveness probe), a live idle reader keeps its queue pair, and the
 * caps on served queue pairs refuse a peer beyond them.
 */
@EnabledIf("io.rdmashuffle.transport.verbs.VerbsTransportTest#verbsAvailable")
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class VerbsServingTest {
  private static final String APP = "app-serving";
  private static final byte[] SECRET = "serving-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final String SERVER = System.getProperty("rdma.test.serverHost", "198.18.100.1");
  private static final String CLIENT = System.getProperty("rdma.test.clientHost", "198.18.100.2");
  private static final long TIMEOUT_SECONDS = Long.getLong("rdma.test.readTimeoutSeconds", 30);

  /** The served queue pairs' probe interval in the probe tests. */
  private static final long PROBE_SECONDS = 2;

  /**
   * The serving side's connect timeout in the probe tests: a served queue pair's first probe goes
   * out that long after it was accepted (its reader has that long to establish the connection), and
   * a probe unanswered for that long counts as lost even when the device still retries it.
   */
  private static final long FIRST_PROBE_SECONDS = 30;

  /**
   * How long the queue pair of a reader that answered a probe may outlive its host: a probe
   * interval, then the probe's transport retries (RDMA-CM's ACK timeout on RoCE, 7 tries) or at
   * most the answer deadline ({@link #FIRST_PROBE_SECONDS}), with room for an emulated guest on a
   * busy host.
   */
  private static final long VANISHED_BOUND_SECONDS = PROBE_SECONDS + FIRST_PROBE_SECONDS + 15;

  private static final Map<String, String> PROBING =
      Map.of(
          "spark.shuffle.rdma.verbs.servedQueuePairs.probeInterval",
          PROBE_SECONDS + "s",
          "spark.shuffle.rdma.connect.timeout",
          FIRST_PROBE_SECONDS + "s");

  private static Transport start(String host, Map<String, String> extra) throws Exception {
    Map<String, String> settings =
        new HashMap<>(
            Map.of(
                "spark.shuffle.rdma.transport",
                "verbs",
                "spark.shuffle.rdma.read.timeout",
                TIMEOUT_SECONDS + "s",
                "spark.shuffle.rdma.connect.timeout",
                3 * TIMEOUT_SECONDS + "s",
                "spark.shuffle.rdma.buffers.maxBytes",
                "64m"));
    settings.putAll(extra);
    return TransportSelector.standard()
        .start(
            RdmaConf.of(TestSchema.SPARK_KEYS, settings),
            ApplicationSecrets.of(APP, SECRET),
            host,
            new TransportMetrics());
  }

  private static int served(Transport t) throws ReflectiveOperationException {
    // VerbsTransport lives in the DiSNI class loader: not nameable from here
    return (int) t.getClass().getMethod("servedQueuePairs").invoke(t);
  }

  /** 1 MiB of pattern {@code seed}, registered on {@code server} for READs of {@link #APP}. */
  private static RegisteredRegion servedRegion(Transport server, int seed) throws Exception {
    ByteBuffer memory = DirectMemory.allocate(1 << 20);
    Patterns.fill(memory, 0, seed);
    return server.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {});
  }

  /** A reader's 4 KiB READ target from a pool of its transport; closing frees both. */
  private static final class ReadTarget implements AutoCloseable {
    final BufferPool pool;
    final PooledBuffer b;

    ReadTarget(Transport client) throws Exception {
      pool = new BufferPool(client.registrar(), 4096, 1 << 20, 16 << 20, true);
      b = pool.allocate(4096, 10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      b.release();
      pool.close();
    }
  }

  /** READs the first 4 KiB of {@code r} on {@code c} into a zeroed target: pattern {@code seed}. */
  private static void assertReadsPattern(
      ReadChannel c, RegisteredRegion r, PooledBuffer b, int seed, String what)
      throws InterruptedException {
    for (int i = 0; i < 4096; i++) {
      b.buffer().put(i, (byte) 0);
    }
    assertEquals(java.util.List.of(), readOnce(c, r, b).failures(), what);
    assertEquals(-1, Patterns.firstMismatch(b.buffer(), 0, 4096, 0, seed), what);
  }

  private static ReadResults readOnce(ReadChannel c, RegisteredRegion r, PooledBuffer b)
      throws InterruptedException {
    ReadResults results = new ReadResults(1);
    c.post(new ReadOp().set(r.address(), r.rkey(), 4096, b, 0, results));
    assertTrue(results.await(4 * TIMEOUT_SECONDS, TimeUnit.SECONDS), "the READ never ended");
    return results;
  }

  /** Waits until the server's readers answered {@code n} probes: the first, then every interval. */
  private static void awaitProbesAnswered(Transport server, long n) throws InterruptedException {
    long deadline =
        System.nanoTime() + TimeUnit.SECONDS.toNanos(FIRST_PROBE_SECONDS + n * PROBE_SECONDS + 30);
    while (server.metrics().servedProbesAnswered() < n && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertTrue(
        server.metrics().servedProbesAnswered() >= n,
        "probes answered: " + server.metrics().servedProbesAnswered());
  }

  @Test
  void withdrawingAnApplicationDropsItsServedQueuePairsAndItsReadersConnectionsEnd()
      throws Exception {
    try (Transport server = start(SERVER, Map.of());
        Transport client = start(CLIENT, Map.of())) {
      RegisteredRegion region = servedRegion(server, 3);
      ReadTarget target = new ReadTarget(client);
      PooledBuffer b = target.b;
      try {
        ReadChannel c = client.connect(server.localAddress(), APP);
        assertEquals(java.util.List.of(), readOnce(c, region, b).failures());
        assertEquals(1, served(server));

        server.withdrawApplication(APP);

        assertEquals(0, served(server), "its queue pair is gone");
        ReadResults after = readOnce(c, region, b);
        assertEquals(1, after.failures().size(), "a READ after the withdrawal fails");
        TransportException e = after.failures().get(0);
        assertTrue(
            e.kind() == FailureKind.CONNECTION_LOST || e.kind() == FailureKind.TIMEOUT,
            "unexpected " + e);
        assertFalse(c.isOpen());
        server.withdrawApplication(APP); // idempotent

        // a late reader of it (a killed or speculative attempt) gets nothing: its connect is
        // refused, and no queue pair or protection domain is made for it again
        assertThrows(TransportException.class, () -> client.connect(server.localAddress(), APP));
        assertEquals(0, served(server), "a queue pair served after the withdrawal");
      } finally {
        target.close();
        region.close();
      }
      assertEquals(0, server.registrar().accounting().registeredRegions());
    }
  }

  /**
   * A reader that goes away (its transport closes, as when its process ends: the kernel destroys
   * its RDMA-CM ids, which disconnects them) frees the queue pair served to it without waiting for
   * its application to be withdrawn.
   */
  @Test
  void aReaderThatGoesAwayFreesItsServedQueuePair() throws Exception {
    try (Transport server = start(SERVER, Map.of())) {
      RegisteredRegion region = servedRegion(server, 5);
      try {
        try (Transport client = start(CLIENT, Map.of())) {
          try (ReadTarget target = new ReadTarget(client)) {
            ReadChannel c = client.connect(server.localAddress(), APP);
            assertEquals(java.util.List.of(), readOnce(c, region, target.b).failures());
            assertEquals(1, served(server));
          }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (served(server) > 0 && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertEquals(0, served(server), "the queue pair served to the closed reader is gone");
      } finally {
        region.close();
      }
    }
  }

  /**
   * A reader whose host vanishes (every packet of its device dropped: no disconnect, no RDMA-CM
   * message reaches the server) loses its served queue pair to the liveness probe while its
   * application is still served, and the server goes on serving a new reader.
   */
  @Test
  void aReaderWhoseHostVanishesLosesItsServedQueuePairToTheProbe() throws Exception {
    Assumptions.assumeTrue(VanishedHost.possible(), "needs root in the Soft-RoCE guest (tc)");
    try (Transport server = start(SERVER, PROBING);
        Transport client = start(CLIENT, Map.of())) {
      RegisteredRegion region = servedRegion(server, 7);
      ReadTarget target = new ReadTarget(client);
      PooledBuffer b = target.b;
      try {
        ReadChannel c = client.connect(server.localAddress(), APP);
        assertEquals(java.util.List.of(), readOnce(c, region, b).failures());
        assertEquals(1, served(server));
        awaitProbesAnswered(server, 1); // the reader was alive once probing started

        long vanished = System.nanoTime();
        long gone;
        VanishedHost host = VanishedHost.of(CLIENT);
        try {
          long deadline = vanished + TimeUnit.SECONDS.toNanos(VANISHED_BOUND_SECONDS);
          while (served(server) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
          }
          gone = System.nanoTime();
          assertEquals(
              0,
              served(server),
              "the vanished reader's queue pair is still served after "
                  + VANISHED_BOUND_SECONDS
                  + " s");
        } finally {
          host.close();
        }
        System.out.printf(
            "vanished reader's served queue pair dropped %.1f s after its host vanished"
                + " (probe interval %d s)%n",
            (gone - vanished) / 1e9, PROBE_SECONDS);
        assertEquals(1, server.metrics().servedPeersLost());
        assertEquals(1, server.registrar().accounting().registeredRegions(), "still served");

        ReadChannel again = client.connect(server.localAddress(), APP);
        assertReadsPattern(again, region, b, 7, "the new reader's bytes");
        assertEquals(1, served(server), "the new reader's queue pair");
        again.close();
        c.close();
      } finally {
        target.close();
        region.close();
      }
    }
  }

  /** A reader that is there but reads nothing for several probe intervals keeps its queue pair. */
  @Test
  void aLiveIdleReaderKeepsItsServedQueuePairAcrossProbes() throws Exception {
    try (Transport server = start(SERVER, PROBING);
        Transport client = start(CLIENT, Map.of())) {
      RegisteredRegion region = servedRegion(server, 9);
      ReadTarget target = new ReadTarget(client);
      PooledBuffer b = target.b;
      try {
        ReadChannel c = client.connect(server.localAddress(), APP);
        assertEquals(java.util.List.of(), readOnce(c, region, b).failures());

        awaitProbesAnswered(server, 3);

        assertEquals(0, server.metrics().servedPeersLost());
        assertEquals(1, served(server));
        assertTrue(c.isOpen());
        assertReadsPattern(c, region, b, 9, "the idle reader's bytes");
        c.close();
      } finally {
        target.close();
        region.close();
      }
    }
  }

  @Test
  void servedQueuePairsOfOnePeerAreCapped() throws Exception {
    Map<String, String> cap = Map.of("spark.shuffle.rdma.verbs.servedQueuePairs.maxPerPeer", "2");
    try (Transport server = start(SERVER, cap);
        Transport client = start(CLIENT, Map.of())) {
      ReadChannel first = client.connect(server.localAddress(), APP);
      ReadChannel second = client.connect(server.localAddress(), APP);

      PeerUnreachableException refused =
          assertThrows(
              PeerUnreachableException.class, () -> client.connect(server.localAddress(), APP));

      assertEquals(2, served(server));
      assertTrue(
          refused.getMessage().contains("connection failed")
              || refused.getMessage().contains("REJECTED")
              || refused.getMessage().contains("within"),
          refused.getMessage());
      first.close();
      second.close();
    }
  }
}
