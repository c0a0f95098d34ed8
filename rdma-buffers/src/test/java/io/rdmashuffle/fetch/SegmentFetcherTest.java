package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.KeyStyle;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.tcp.TcpTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class SegmentFetcherTest {
  private static final String APP = "app-fetch";
  private static final byte[] SECRET = "fetch-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  @TempDir Path dir;
  private TcpTransport server;
  private TcpTransport client;
  private BufferPool pool;
  private ConnectionPool connections;
  private RegisteredFile file;

  @BeforeEach
  void start() throws Exception {
    RdmaConf conf = RdmaConf.of(KeyStyle.SPARK, Map.of("spark.shuffle.rdma.read.timeout", "3s"));
    server = TcpTransport.start(new TransportContext(conf, ApplicationSecrets.of(APP, SECRET),
        "127.0.0.1", new TransportMetrics()));
    client = TcpTransport.start(new TransportContext(conf, ApplicationSecrets.of(APP, SECRET),
        "127.0.0.1", new TransportMetrics()));
    pool = new BufferPool(client.registrar(), 4096, 1 << 20, 64 << 20, true);
    connections = new ConnectionPool(client, 1);
    Path p = Patterns.file(dir.resolve("data"), 3 * 65536 + 999, 7);
    file = RegisteredFile.open(p, 65536, server.registrar(), APP);
  }

  @AfterEach
  void stop() {
    file.close();
    connections.close();
    assertEquals(List.of(), pool.leaks());
    pool.close();
    client.close();
    server.close();
  }

  private SegmentFetcher.Request request(long offset, int length) {
    return new SegmentFetcher.Request(server.localAddress(), APP, file.descriptor(), offset, length,
        "segment@" + offset);
  }

  @Test
  void fetchesSegmentsAcrossPiecesWithTheRightBytesWithinTheByteBound() throws Exception {
    Random r = new Random(3);
    long bound = 100_000;
    try (SegmentFetcher f = new SegmentFetcher(connections, pool, bound, 8, 1000)) {
      Map<Object, long[]> asked = new HashMap<>();
      for (int i = 0; i < 200; i++) {
        int len = r.nextInt(60_000);
        long off = r.nextInt((int) file.length() - len);
        SegmentFetcher.Request q = new SegmentFetcher.Request(server.localAddress(), APP,
            file.descriptor(), off, len, i);
        asked.put(i, new long[] {off, len});
        f.add(q);
      }
      List<SegmentFetcher.Fetched> held = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        SegmentFetcher.Result res = f.take(10, TimeUnit.SECONDS);
        assertInstanceOf(SegmentFetcher.Fetched.class, res, () -> "" + res);
        SegmentFetcher.Fetched got = (SegmentFetcher.Fetched) res;
        long[] q = asked.remove(got.request().tag());
        assertEquals(q[1], got.data().remaining());
        assertEquals(-1, Patterns.firstMismatch(got.data(), 0, (int) q[1], q[0], 7));
        assertTrue(f.bytesInFlight() <= Math.max(bound, q[1]), "held " + f.bytesInFlight());
        held.add(got);
        if (held.size() == 3) {
          held.forEach(SegmentFetcher.Fetched::release);
          held.clear();
        }
      }
      held.forEach(SegmentFetcher.Fetched::release);
      assertEquals(Map.of(), asked);
      assertEquals(0, f.bytesInFlight());
      assertEquals(0, f.outstanding());
    }
  }

  @Test
  void anEmptySegmentNeedsNoRead() throws Exception {
    try (SegmentFetcher f = new SegmentFetcher(connections, pool, 1 << 20, 8, 1000)) {
      f.add(request(10, 0));
      SegmentFetcher.Fetched got = (SegmentFetcher.Fetched) f.take(5, TimeUnit.SECONDS);
      assertEquals(0, got.data().remaining());
      got.release();
      assertEquals(0, client.metrics().readsCompleted());
    }
  }

  @Test
  void aBrokenConnectionIsReplacedAndTheReadRetriedOnce() throws Exception {
    try (SegmentFetcher f = new SegmentFetcher(connections, pool, 1 << 20, 8, 1000)) {
      f.add(request(0, 1000));
      SegmentFetcher.Fetched first = (SegmentFetcher.Fetched) f.take(5, TimeUnit.SECONDS);
      first.release();
      connections.channel(server.localAddress(), APP).close();
      f.add(request(65530, 20));
      SegmentFetcher.Result res = f.take(10, TimeUnit.SECONDS);
      SegmentFetcher.Fetched got = assertInstanceOf(SegmentFetcher.Fetched.class, res, "" + res);
      assertEquals(-1, Patterns.firstMismatch(got.data(), 0, 20, 65530, 7));
      got.release();
    }
  }

  @Test
  void aSegmentThatFailsTwiceIsReportedWithItsRequestAndCause() throws Exception {
    SegmentFetcher.Request q = request(0, 500);
    file.close();
    try (SegmentFetcher f = new SegmentFetcher(connections, pool, 1 << 20, 8, 1000)) {
      f.add(q);
      SegmentFetcher.Result res = f.take(10, TimeUnit.SECONDS);
      SegmentFetcher.Failed failed = assertInstanceOf(SegmentFetcher.Failed.class, res);
      assertSame(q, failed.request());
      assertInstanceOf(RemoteAccessException.class, failed.cause());
      assertEquals(2, server.metrics().failures(io.rdmashuffle.transport.FailureKind.REMOTE_ACCESS)
          + client.metrics().failures(io.rdmashuffle.transport.FailureKind.REMOTE_ACCESS),
          "one READ and one retry");
      assertEquals(0, f.bytesInFlight());
    }
  }

  @Test
  void closeReleasesBuffersOfReadsStillInFlightOrUnconsumed() throws Exception {
    SegmentFetcher f = new SegmentFetcher(connections, pool, 1 << 20, 64, 1000);
    for (int i = 0; i < 20; i++) {
      f.add(request(i * 1000L, 1000));
    }
    SegmentFetcher.Fetched one = (SegmentFetcher.Fetched) f.take(5, TimeUnit.SECONDS);
    f.close();
    one.release();
    long deadline = System.currentTimeMillis() + 5000;
    while (!pool.leaks().isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(List.of(), pool.leaks());
  }

  @Test
  void aSegmentOutsideTheFileIsRejectedWhenAsked() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> request(file.length() - 5, 6));
    assertTrue(e.getMessage().contains("outside the registered file"), e.getMessage());
  }
}
