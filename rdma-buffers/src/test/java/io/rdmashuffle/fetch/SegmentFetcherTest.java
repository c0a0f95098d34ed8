/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
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
    RdmaConf conf =
        RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.read.timeout", "3s"));
    server =
        Transports.tcp(
            conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", new TransportMetrics());
    client =
        Transports.tcp(
            conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", new TransportMetrics());
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

  private final java.util.concurrent.atomic.AtomicInteger retries =
      new java.util.concurrent.atomic.AtomicInteger();

  private SegmentFetcher fetcher(long maxBytes, int maxRequests, int maxRetries) {
    return new SegmentFetcher(
        connections,
        pool,
        SegmentLimits.single(maxBytes, maxRequests, 1000, maxRetries, 50),
        retries::incrementAndGet);
  }

  private SegmentRequest request(long offset, int length) {
    return new SegmentRequest(
        server.localAddress(), APP, file.descriptor(), offset, length, "segment@" + offset);
  }

  @Test
  void fetchesSegmentsAcrossPiecesWithTheRightBytesWithinTheByteBound() throws Exception {
    Random r = new Random(3);
    long bound = 100_000;
    try (SegmentFetcher f = fetcher(bound, 8, 1)) {
      Map<Object, long[]> asked = new HashMap<>();
      for (int i = 0; i < 200; i++) {
        int len = r.nextInt(60_000);
        long off = r.nextInt((int) file.length() - len);
        SegmentRequest q =
            new SegmentRequest(server.localAddress(), APP, file.descriptor(), off, len, i);
        asked.put(i, new long[] {off, len});
        f.add(q);
      }
      List<FetchedSegment> held = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        SegmentFetcher.Result res = f.take(10, TimeUnit.SECONDS);
        assertInstanceOf(FetchedSegment.class, res, () -> "" + res);
        FetchedSegment got = (FetchedSegment) res;
        long[] q = asked.remove(got.request().tag());
        assertEquals(q[1], got.data().remaining());
        assertEquals(-1, Patterns.firstMismatch(got.data(), 0, (int) q[1], q[0], 7));
        held.add(got);
        long consumerHolds = held.stream().mapToLong(h -> h.data().limit()).sum();
        // beyond the bound: what the consumer holds, and one segment admitted so it can go on
        assertTrue(f.bytesHeld() <= bound + consumerHolds + 60_000, "held " + f.bytesHeld());
        if (held.size() == 3) {
          held.forEach(FetchedSegment::release);
          held.clear();
        }
      }
      held.forEach(FetchedSegment::release);
      assertEquals(Map.of(), asked);
      assertEquals(0, f.bytesHeld());
      assertEquals(0, f.outstanding());
    }
  }

  /**
   * Whoever waits polls: before it blocks, the consumer lets the channel of its READs help until a
   * result is there (verbs polls the completion queue on that thread). The channel here issues its
   * READs only when asked for help: a consumer that blocked without asking would get nothing.
   */
  @Test
  void theConsumerLetsTheChannelHelpUntilAResultIsThereBeforeItBlocks() throws Exception {
    java.util.concurrent.atomic.AtomicInteger helps =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger issuedByHelp =
        new java.util.concurrent.atomic.AtomicInteger();
    io.rdmashuffle.transport.Transport helping =
        (io.rdmashuffle.transport.Transport)
            java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {io.rdmashuffle.transport.Transport.class},
                (proxy, method, args) -> {
                  Object result = method.invoke(client, args);
                  return method.getName().equals("connect")
                      ? new HelpingChannel(
                          (io.rdmashuffle.transport.ReadChannel) result, helps, issuedByHelp)
                      : result;
                });
    connections.close();
    connections = new ConnectionPool(helping, 1);
    try (SegmentFetcher f = fetcher(1 << 20, 8, 1)) {
      for (int i = 0; i < 5; i++) {
        f.add(request(i * 1000L, 1000));
        SegmentFetcher.Result res = f.take(10, TimeUnit.SECONDS);
        assertInstanceOf(FetchedSegment.class, res, () -> "" + res);
        ((FetchedSegment) res).release();
      }
    }
    // the channel posts only when asked for help: every READ went out from a help, and a help
    // may end before its READ did (the wait is bounded), so the consumer asks again
    assertEquals(
        5, issuedByHelp.get(), "every READ was issued by a help before the consumer blocked");
    assertTrue(helps.get() >= 5, "the consumer asked its channel for help: " + helps.get());
  }

  /**
   * A tcp channel that holds the READs posted on it until asked for help, then issues them and
   * waits, on the helping thread, until the consumer is ready.
   */
  private static final class HelpingChannel implements io.rdmashuffle.transport.ReadChannel {
    private final io.rdmashuffle.transport.ReadChannel in;
    private final List<io.rdmashuffle.transport.ReadOp> held = new ArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger helps;
    private final java.util.concurrent.atomic.AtomicInteger issuedByHelp;

    HelpingChannel(
        io.rdmashuffle.transport.ReadChannel in,
        java.util.concurrent.atomic.AtomicInteger helps,
        java.util.concurrent.atomic.AtomicInteger issuedByHelp) {
      this.in = in;
      this.helps = helps;
      this.issuedByHelp = issuedByHelp;
    }

    @Override
    public boolean helpUntil(java.util.function.BooleanSupplier ready, long maxNanos) {
      helps.incrementAndGet();
      List<io.rdmashuffle.transport.ReadOp> ops;
      synchronized (held) {
        ops = new ArrayList<>(held);
        held.clear();
      }
      issuedByHelp.addAndGet(ops.size());
      in.postAll(ops);
      long until = System.nanoTime() + Math.min(maxNanos, TimeUnit.SECONDS.toNanos(5));
      while (!ready.getAsBoolean() && System.nanoTime() - until < 0) {
        Thread.onSpinWait();
      }
      return ready.getAsBoolean();
    }

    @Override
    public io.rdmashuffle.transport.PeerAddress peer() {
      return in.peer();
    }

    @Override
    public String application() {
      return in.application();
    }

    @Override
    public boolean isOpen() {
      return in.isOpen();
    }

    @Override
    public boolean tryPost(io.rdmashuffle.transport.ReadOp op) {
      post(op);
      return true;
    }

    @Override
    public void post(io.rdmashuffle.transport.ReadOp op) {
      synchronized (held) {
        held.add(op);
      }
    }

    @Override
    public void postAll(List<io.rdmashuffle.transport.ReadOp> ops) {
      synchronized (held) {
        held.addAll(ops);
      }
    }

    @Override
    public int inFlight() {
      return in.inFlight();
    }

    @Override
    public void close() {
      in.close();
    }
  }

  @Test
  void anEmptySegmentNeedsNoRead() throws Exception {
    try (SegmentFetcher f = fetcher(1 << 20, 8, 1)) {
      f.add(request(10, 0));
      FetchedSegment got = (FetchedSegment) f.take(5, TimeUnit.SECONDS);
      assertEquals(0, got.data().remaining());
      got.release();
      assertEquals(0, client.metrics().readsCompleted());
    }
  }

  @Test
  void aBrokenConnectionIsReplacedAndTheReadRetried() throws Exception {
    try (SegmentFetcher f = fetcher(1 << 20, 8, 3)) {
      f.add(request(0, 1000));
      FetchedSegment first = (FetchedSegment) f.take(5, TimeUnit.SECONDS);
      first.release();
      connections.channel(server.localAddress(), APP).close();
      f.add(request(65530, 20));
      SegmentFetcher.Result res = f.take(10, TimeUnit.SECONDS);
      FetchedSegment got = assertInstanceOf(FetchedSegment.class, res, "" + res);
      assertEquals(-1, Patterns.firstMismatch(got.data(), 0, 20, 65530, 7));
      got.release();
    }
  }

  @Test
  void aReadTheOwnerRefusesIsHandedOverAtOnceWithItsRequestAndCause() throws Exception {
    SegmentRequest q = request(0, 500);
    file.close();
    try (SegmentFetcher f = fetcher(1 << 20, 8, 3)) {
      f.add(q);
      SegmentFetcher.Result res = f.take(10, TimeUnit.SECONDS);
      SegmentFetcher.Failed failed = assertInstanceOf(SegmentFetcher.Failed.class, res);
      assertSame(q, failed.request());
      assertInstanceOf(RemoteAccessException.class, failed.cause());
      assertTrue(failed.refusedByOwner());
      assertEquals(
          1,
          client.metrics().failures(io.rdmashuffle.metrics.FailureKind.REMOTE_ACCESS),
          "a withdrawn registration is not retried: the caller asks the owner where it is now");
      assertEquals(0, retries.get());
      assertEquals(0, f.bytesHeld());
    }
  }

  @Test
  void anUnreachableOwnerIsRetriedTheConfiguredNumberOfTimesThenFails() throws Exception {
    SegmentRequest q =
        new SegmentRequest(
            new io.rdmashuffle.transport.PeerAddress("127.0.0.1", 1),
            APP,
            file.descriptor(),
            0,
            10,
            "x");
    try (SegmentFetcher f = fetcher(1 << 20, 8, 2)) {
      f.add(q);
      long t0 = System.nanoTime();
      SegmentFetcher.Result res = f.take(20, TimeUnit.SECONDS);
      SegmentFetcher.Failed failed = assertInstanceOf(SegmentFetcher.Failed.class, res);
      assertInstanceOf(io.rdmashuffle.transport.PeerUnreachableException.class, failed.cause());
      assertFalse(failed.shortage());
      assertEquals(2, retries.get(), "tried three times in all");
      assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(100), "waited between");
      assertEquals(0, f.bytesHeld());
    }
  }

  @Test
  void noBufferWithinTheWaitIsTheReadersShortageNotAPeerFailure() throws Exception {
    BufferPool tiny = new BufferPool(client.registrar(), 4096, 1 << 20, 1 << 20, true);
    try (SegmentFetcher hog =
            new SegmentFetcher(
                connections, tiny, SegmentLimits.single(1 << 20, 8, 100, 0, 0), () -> {});
        SegmentFetcher f =
            new SegmentFetcher(
                connections, tiny, SegmentLimits.single(1 << 20, 8, 200, 0, 0), () -> {})) {
      hog.add(request(0, (int) file.length())); // the pool's one chunk, carved for its size
      FetchedSegment all = (FetchedSegment) hog.take(5, TimeUnit.SECONDS);
      f.add(request(0, 100));
      SegmentFetcher.Failed failed =
          assertInstanceOf(SegmentFetcher.Failed.class, f.take(5, TimeUnit.SECONDS));
      assertTrue(failed.shortage(), failed.cause().toString());
      assertFalse(failed.refusedByOwner());
      all.release();
    } finally {
      assertEquals(List.of(), tiny.leaks());
      tiny.close();
    }
  }

  @Test
  void segmentsArrivingOutOfOrderNeverHoldMoreThanTheBoundPlusTheOneTheConsumerNeeds()
      throws Exception {
    int chunk = 16 * 1024;
    long bound = 4L * chunk;
    try (SegmentFetcher f = fetcher(bound, 64, 1)) {
      List<SegmentRequest> qs = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        SegmentRequest q = request((long) i * chunk, chunk);
        qs.add(q);
        f.add(q);
      }
      // a consumer that wants chunk 0 last: every other chunk it takes early stays held
      Map<Object, FetchedSegment> early = new HashMap<>();
      for (int want = 11; want >= 0; want--) {
        SegmentRequest needed = qs.get(want);
        while (!early.containsKey(needed.tag())) {
          FetchedSegment got =
              assertInstanceOf(FetchedSegment.class, f.take(10, TimeUnit.SECONDS, needed));
          early.put(got.request().tag(), got);
          assertTrue(f.bytesHeld() <= bound + chunk, "held " + f.bytesHeld());
        }
        early.remove(needed.tag()).release();
      }
      early.values().forEach(FetchedSegment::release);
      assertEquals(0, f.bytesHeld());
    }
  }

  @Test
  void closeReleasesBuffersOfReadsStillInFlightOrUnconsumed() throws Exception {
    SegmentFetcher f = fetcher(1 << 20, 64, 1);
    for (int i = 0; i < 20; i++) {
      f.add(request(i * 1000L, 1000));
    }
    FetchedSegment one = (FetchedSegment) f.take(5, TimeUnit.SECONDS);
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
