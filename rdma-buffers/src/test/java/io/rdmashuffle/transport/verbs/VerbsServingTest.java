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
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.FailureKind;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The verbs serving side's own rules, on real verbs in the Soft-RoCE guest: an application's served
 * queue pairs go when it is withdrawn or their reader goes away, and the caps on served queue pairs
 * refuse a peer beyond them.
 */
@EnabledIf("io.rdmashuffle.transport.verbs.VerbsTransportTest#verbsAvailable")
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class VerbsServingTest {
  private static final String APP = "app-serving";
  private static final byte[] SECRET = "serving-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final String SERVER = System.getProperty("rdma.test.serverHost", "198.18.100.1");
  private static final String CLIENT = System.getProperty("rdma.test.clientHost", "198.18.100.2");
  private static final long TIMEOUT_SECONDS = Long.getLong("rdma.test.readTimeoutSeconds", 30);

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
    return new VerbsTransportProvider()
        .start(
            new TransportContext(
                RdmaConf.of(TestSchema.SPARK_KEYS, settings),
                ApplicationSecrets.of(APP, SECRET),
                host,
                new TransportMetrics()));
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

  private static ReadResults readOnce(ReadChannel c, RegisteredRegion r, PooledBuffer b)
      throws InterruptedException {
    ReadResults results = new ReadResults(1);
    c.post(new ReadOp().set(r.address(), r.rkey(), 4096, b, 0, results));
    assertTrue(results.await(4 * TIMEOUT_SECONDS, TimeUnit.SECONDS), "the READ never ended");
    return results;
  }

  @Test
  void withdrawingAnApplicationDropsItsServedQueuePairsAndItsReadersConnectionsEnd()
      throws Exception {
    try (Transport server = start(SERVER, Map.of());
        Transport client = start(CLIENT, Map.of())) {
      RegisteredRegion region = servedRegion(server, 3);
      BufferPool pool = new BufferPool(client.registrar(), 4096, 1 << 20, 16 << 20, true);
      PooledBuffer b = pool.allocate(4096, 10, TimeUnit.SECONDS);
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
      } finally {
        b.release();
        region.close();
        pool.close();
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
          BufferPool pool = new BufferPool(client.registrar(), 4096, 1 << 20, 16 << 20, true);
          PooledBuffer b = pool.allocate(4096, 10, TimeUnit.SECONDS);
          try {
            ReadChannel c = client.connect(server.localAddress(), APP);
            assertEquals(java.util.List.of(), readOnce(c, region, b).failures());
            assertEquals(1, served(server));
          } finally {
            b.release();
            pool.close();
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
