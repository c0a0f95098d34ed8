/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.fetch.FetchedSegment;
import io.rdmashuffle.fetch.SegmentFetcher;
import io.rdmashuffle.fetch.SegmentLimits;
import io.rdmashuffle.fetch.SegmentRequest;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.hadoop.testing.FakeMapOutputs;
import io.rdmashuffle.hadoop.testing.JobTokens;
import io.rdmashuffle.hadoop.testing.LocalDirs;
import io.rdmashuffle.hadoop.testing.MapOutputsCall;
import io.rdmashuffle.hadoop.testing.RefusingTransports;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.tcp.TcpTransport;
import java.io.DataInputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.SecretKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleHeader;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The NodeManager service on its own: answers, refusals, the stock HTTP shuffle, cleanup. */
@Timeout(120)
class RdmaShuffleHandlerTest {
  private static final String USER = "alice";
  private static final JobID JOB_A = FakeMapOutputs.job(1);
  private static final JobID JOB_B = FakeMapOutputs.job(2);

  @TempDir Path tmp;
  private LocalDirs dirs;
  private RdmaShuffleHandler service;
  private int port;
  private final Token<JobTokenIdentifier> tokenA = JobTokens.token(JOB_A);
  private final Token<JobTokenIdentifier> tokenB = JobTokens.token(JOB_B);
  private final List<AutoCloseable> closeAfter = new ArrayList<>();

  @BeforeAll
  static void metrics() {
    DefaultMetricsSystem.setMiniClusterMode(true);
  }

  @BeforeEach
  void start() throws Exception {
    Path d1 = Files.createDirectories(tmp.resolve("local1"));
    Path d2 = Files.createDirectories(tmp.resolve("local2"));
    dirs = new LocalDirs(List.of(d1, d2));
    service = start(Map.of());
    service.initializeApplication(JobTokens.init(JOB_A, USER, tokenA));
  }

  private RdmaShuffleHandler start(Map<String, String> settings) throws Exception {
    Configuration conf = new Configuration();
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
    conf.set("mapreduce.shuffle.rdma.host", "127.0.0.1");
    settings.forEach(conf::set);
    RdmaShuffleHandler s = new RdmaShuffleHandler();
    s.setAuxiliaryLocalPathHandler(dirs);
    s.init(conf);
    s.start();
    port = ShuffleHandler.deserializeMetaData(s.getMetaData());
    return s;
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
    service.stop();
  }

  private long registeredBytes() {
    return service.transportMetrics().memory().registeredBytes();
  }

  /**
   * The registered bytes once the server's I/O thread has let go of the regions it sent from: it
   * releases a response's region after writing it, which may come just after the reader has the
   * bytes (on a loaded machine this test saw 8,000 bytes still held right after the job's end).
   * Waits up to 5 s, then answers what is still registered.
   */
  private long registeredBytesOnceSendsEnd() throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (registeredBytes() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return registeredBytes();
  }

  private static SecretKey key(Token<JobTokenIdentifier> t) {
    return JobTokens.secret(t);
  }

  private MapOutputsCall ask(JobID job, int reduce, SecretKey key, TaskAttemptID... maps)
      throws Exception {
    List<String> ids = new ArrayList<>();
    for (TaskAttemptID m : maps) {
      ids.add(m.toString());
    }
    return MapOutputsCall.send(port, job.toString(), reduce, ids, key);
  }

  /** A reader's transport that knows only {@code token}'s job. */
  private TcpTransport reader(JobID job, Token<JobTokenIdentifier> token) throws Exception {
    RdmaConf conf =
        RdmaConf.of(MapReduceConfig.SCHEMA, Map.of("mapreduce.shuffle.rdma.read.timeout", "5s"));
    TcpTransport t =
        Transports.tcp(
            conf,
            ApplicationSecrets.of(
                job.toString(), JobSecrets.transportSecret(token.getPassword(), job.toString())),
            "127.0.0.1",
            new TransportMetrics());
    closeAfter.add(t);
    return t;
  }

  private List<SegmentFetcher.Result> read(TcpTransport t, JobID job, int reduce, LocateAnswer a)
      throws Exception {
    BufferPool pool = new BufferPool(t.registrar(), 4096, 1 << 20, 64 << 20, true);
    ConnectionPool connections = new ConnectionPool(t, 1);
    closeAfter.add(pool);
    closeAfter.add(connections);
    List<SegmentFetcher.Result> results = new ArrayList<>();
    try (SegmentFetcher f =
        new SegmentFetcher(
            connections, pool, SegmentLimits.single(8 << 20, 16, 1000, 1, 0), () -> {})) {
      for (LocateAnswer.Located e : a.maps()) {
        f.add(
            new SegmentRequest(
                a.responder(),
                job.toString(),
                e.data(),
                e.partitions().start(reduce),
                (int) e.partitions().length(reduce),
                e.map()));
      }
      while (f.outstanding() > 0) {
        results.add(f.take(10, TimeUnit.SECONDS));
      }
    }
    return results;
  }

  /**
   * A service that has not started (or has begun to stop) tells a reducer to come back later (503
   * with Retry-After), never that the node serves no READs: during a NodeManager restart the
   * reducers wait for it instead of fetching its maps over HTTP.
   */
  @Test
  void aServiceNotStartedYetTellsReducersToComeBackLater() {
    RdmaShuffleHandler notStarted = new RdmaShuffleHandler();
    MapOutputsRequestHandler.Response r =
        notStarted.answer(
            MapOutputsRequestHandler.parse(
                "/mapOutputs",
                Map.of(
                    MapOutputsRequest.PARAM_JOB,
                    List.of("job_1_0001"),
                    MapOutputsRequest.PARAM_REDUCE,
                    List.of("0"),
                    MapOutputsRequest.PARAM_MAPS,
                    List.of("attempt_1_0001_m_000000_0")),
                "hash"));
    assertEquals(503, r.status().code());
    assertTrue(r.retryLater(), "Retry-After");
  }

  @Test
  void answersWithTheIndexOffsetsAndTheSegmentsReadBackExactly() throws Exception {
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    TaskAttemptID m1 = FakeMapOutputs.map(JOB_A, 1);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 10, 1000, 0, 70_000);
    FakeMapOutputs.write(dirs.dirs().get(1), JOB_A, USER, m1, 11, 5, 333_333, 4096);

    MapOutputsCall call = ask(JOB_A, 2, key(tokenA), m0, m1);
    assertEquals(200, call.status(), call.text());
    assertEquals(MapOutputsRequest.CONTENT_TYPE, call.contentType());
    String urlHash =
        SecureShuffleUtils.hashFromString(
            SecureShuffleUtils.buildMsgFrom(
                MapOutputsRequest.url(
                    "localhost", port, JOB_A.toString(), 2, List.of(m0.toString(), m1.toString()))),
            key(tokenA));
    SecureShuffleUtils.verifyReply(call.replyHash(), urlHash, key(tokenA));

    LocateAnswer a = call.answer();
    assertEquals(List.of(Status.OK, Status.OK), a.maps().stream().map(e -> e.status()).toList());
    LocateAnswer.Located e0 = a.maps().get(0);
    assertEquals(2, e0.partitions().first());
    assertEquals(1, e0.partitions().size(), "only the asked partition");
    assertEquals(1000, e0.partitions().start(2));
    assertEquals(70_000, e0.partitions().length(2));
    assertEquals(140_000, e0.partitions().rawLength(2));
    LocateAnswer.Located e1 = a.maps().get(1);
    assertEquals(333_338, e1.partitions().start(2));
    assertEquals(4096, e1.partitions().length(2));

    List<SegmentFetcher.Result> got = read(reader(JOB_A, tokenA), JOB_A, 2, a);
    for (SegmentFetcher.Result r : got) {
      FetchedSegment f = assertInstanceOf(FetchedSegment.class, r, r.toString());
      LocateAnswer.Located e = f.request().tag().equals(m0.toString()) ? e0 : e1;
      int seed = e == e0 ? 10 : 11;
      assertEquals(
          -1,
          Patterns.firstMismatch(
              f.data(), 0, (int) e.partitions().length(2), e.partitions().start(2), seed));
      f.release();
    }
    assertEquals(2, service.registeredOutputs());
    assertTrue(registeredBytes() > 0);
  }

  @Test
  void anIndexAndItsDataInDifferentLocalDirsAreServed() throws Exception {
    // the map task's local dir allocator picks a dir per file: an empty map's two files
    // landed in different local dirs
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    Path at0 = FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 22, 300, 700);
    Path at1 = FakeMapOutputs.outputDir(dirs.dirs().get(1), JOB_A, USER).resolve(m0.toString());
    Files.createDirectories(at1);
    Files.move(at0.resolve("file.out"), at1.resolve("file.out"));

    LocateAnswer.Located e = ask(JOB_A, 1, key(tokenA), m0).answer().maps().get(0);
    assertEquals(Status.OK, e.status(), e.message());
    assertEquals(300, e.partitions().start(1));
    FetchedSegment f =
        assertInstanceOf(
            FetchedSegment.class,
            read(reader(JOB_A, tokenA), JOB_A, 1, ask(JOB_A, 1, key(tokenA), m0).answer()).get(0));
    assertEquals(-1, Patterns.firstMismatch(f.data(), 0, 700, 300, 22));
    f.release();
  }

  @Test
  void theStockHttpShuffleStillServesOnTheSamePort() throws Exception {
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 12, 100, 2000);
    URL url =
        new URL("http://localhost:" + port + "/mapOutput?job=" + JOB_A + "&reduce=1&map=" + m0);
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    c.addRequestProperty(ShuffleHeader.HTTP_HEADER_NAME, ShuffleHeader.DEFAULT_HTTP_HEADER_NAME);
    c.addRequestProperty(
        ShuffleHeader.HTTP_HEADER_VERSION, ShuffleHeader.DEFAULT_HTTP_HEADER_VERSION);
    c.addRequestProperty(
        SecureShuffleUtils.HTTP_HEADER_URL_HASH,
        SecureShuffleUtils.hashFromString(SecureShuffleUtils.buildMsgFrom(url), key(tokenA)));
    assertEquals(200, c.getResponseCode());
    try (DataInputStream in = new DataInputStream(c.getInputStream())) {
      // ShuffleHeader's fields are package-private; its layout: map id, lengths, reduce
      assertEquals(m0.toString(), org.apache.hadoop.io.Text.readString(in));
      assertEquals(2000, org.apache.hadoop.io.WritableUtils.readVLong(in));
      assertEquals(4000, org.apache.hadoop.io.WritableUtils.readVLong(in));
      assertEquals(1, org.apache.hadoop.io.WritableUtils.readVInt(in));
      byte[] data = in.readNBytes(2000);
      assertEquals(-1, Patterns.firstMismatch(ByteBuffer.wrap(data), 0, 2000, 100, 12));
    }
    assertEquals(0, service.answeredRequests(), "the stock request must not reach our handler");
  }

  @Test
  void aBadOrMissingTokenHashOrAnUnknownJobIsRefusedWithoutAByte() throws Exception {
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 13, 100);
    SecretKey wrong =
        JobTokenSecretManager.createSecretKey(
            "not the job's secret".getBytes(StandardCharsets.UTF_8));
    List<MapOutputsCall> refused =
        List.of(
            ask(JOB_A, 0, wrong, m0),
            ask(JOB_A, 0, null, m0),
            ask(JOB_B, 0, key(tokenB), FakeMapOutputs.map(JOB_B, 0)));
    for (MapOutputsCall c : refused) {
      assertEquals(401, c.status(), c.text());
      assertNull(c.replyHash());
      // a bad hash and an unknown job read the same: an outsider learns nothing of which jobs run
      assertEquals("request not authenticated", c.text().strip(), c.text());
    }
    assertEquals(0, registeredBytes(), "nothing registered for refused requests");
    assertEquals(
        refused.size(),
        service.transportMetrics().refusals(Refusal.LOCATE_UNAUTHENTICATED),
        "every refusal counted");
  }

  @Test
  void aReducerOfAnotherJobGetsNeitherAnswersNorReadsOfThisJob() throws Exception {
    service.initializeApplication(JobTokens.init(JOB_B, "bob", tokenB));
    TaskAttemptID a0 = FakeMapOutputs.map(JOB_A, 0);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, a0, 14, 500);

    // B's token for A's job: refused; B's job naming A's map: refused per map
    assertEquals(401, ask(JOB_A, 0, key(tokenB), a0).status());
    MapOutputsCall c = ask(JOB_B, 0, key(tokenB), a0);
    assertEquals(200, c.status(), c.text());
    LocateAnswer.Located e = c.answer().maps().get(0);
    assertEquals(Status.REFUSED, e.status());
    assertNull(e.data());

    // READs: B's reader can't prove A's secret, and can't READ A's regions as B
    LocateAnswer forA = ask(JOB_A, 0, key(tokenA), a0).answer();
    TcpTransport readerB = reader(JOB_B, tokenB);
    assertThrows(
        AuthenticationException.class,
        () -> {
          TcpTransport forged =
              Transports.tcp(
                  RdmaConf.defaults(MapReduceConfig.SCHEMA),
                  ApplicationSecrets.of(
                      JOB_A.toString(),
                      JobSecrets.transportSecret(tokenB.getPassword(), JOB_A.toString())),
                  "127.0.0.1",
                  new TransportMetrics());
          closeAfter.add(forged);
          forged.connect(forA.responder(), JOB_A.toString());
        });
    SegmentFetcher.Result r = read(readerB, JOB_B, 0, forA).get(0);
    SegmentFetcher.Failed f = assertInstanceOf(SegmentFetcher.Failed.class, r);
    RemoteAccessException rae = assertInstanceOf(RemoteAccessException.class, f.cause());
    assertEquals(RemoteAccessException.Reason.NOT_PERMITTED, rae.reason());
  }

  @Test
  void missingMapsMalformedIdsAndMissingPartitionsGetClearStatuses() throws Exception {
    TaskAttemptID present = FakeMapOutputs.map(JOB_A, 0);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, present, 15, 10, 20);
    List<String> ids =
        List.of(
            FakeMapOutputs.map(JOB_A, 7).toString(),
            "../../../../etc/passwd",
            "attempt_1700000000000_0001_r_000000_0",
            present.toString());
    MapOutputsCall c = MapOutputsCall.send(port, JOB_A.toString(), 0, ids, key(tokenA));
    assertEquals(200, c.status(), c.text());
    List<LocateAnswer.Located> es = c.answer().maps();
    assertEquals(Status.NOT_FOUND, es.get(0).status());
    assertEquals(Status.REFUSED, es.get(1).status());
    assertEquals(Status.REFUSED, es.get(2).status(), "a reduce attempt is not a map output");
    assertEquals(Status.OK, es.get(3).status());

    MapOutputsCall beyond = ask(JOB_A, 2, key(tokenA), present);
    LocateAnswer.Located e = beyond.answer().maps().get(0);
    assertEquals(Status.REFUSED, e.status());
    assertTrue(e.message().contains("has 2"), e.message());
  }

  @Test
  void filesThatResolveOutsideTheJobsOutputDirsAreRefused() throws Exception {
    Path secret = Patterns.file(tmp.resolve("not-a-map-output"), 4096, 16);
    TaskAttemptID linked = FakeMapOutputs.map(JOB_A, 0);
    Path dir = FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, linked, 16, 4096);
    Files.delete(dir.resolve("file.out"));
    Files.createSymbolicLink(dir.resolve("file.out"), secret);

    TaskAttemptID dirLinked = FakeMapOutputs.map(JOB_A, 1);
    Path elsewhere =
        FakeMapOutputs.write(tmp.resolve("elsewhere"), JOB_A, USER, dirLinked, 17, 4096);
    Path out = FakeMapOutputs.outputDir(dirs.dirs().get(1), JOB_A, USER);
    Files.createDirectories(out);
    Files.createSymbolicLink(out.resolve(dirLinked.toString()), elsewhere);

    MapOutputsCall c = ask(JOB_A, 0, key(tokenA), linked, dirLinked);
    assertEquals(200, c.status(), c.text());
    for (LocateAnswer.Located e : c.answer().maps()) {
      assertEquals(Status.REFUSED, e.status(), e.map());
      assertNull(e.data());
      assertTrue(e.message().contains("link"), e.message());
    }
    assertEquals(0, registeredBytes());
  }

  @Test
  void aFinishedJobsRegionsAreDeregisteredAndItsSecretForgotten() throws Exception {
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 18, 3000, 5000);
    LocateAnswer a = ask(JOB_A, 1, key(tokenA), m0).answer();
    TcpTransport r = reader(JOB_A, tokenA);
    assertInstanceOf(FetchedSegment.class, read(r, JOB_A, 1, a).get(0)).release();
    long registered = service.transportMetrics().memory().registeredBytes();
    assertEquals(8000, registered);

    service.stopApplication(JobTokens.stop(JOB_A));
    assertEquals(0, service.registeredOutputs());
    assertEquals(0, registeredBytesOnceSendsEnd());
    SegmentFetcher.Result after = read(r, JOB_A, 1, a).get(0);
    assertInstanceOf(SegmentFetcher.Failed.class, after, "a READ of a finished job's output");
    assertEquals(401, ask(JOB_A, 1, key(tokenA), m0).status());
  }

  @Test
  void withReadsStoppedTheServiceAnswersUnavailableAndHttpGoesOn() throws Exception {
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 19, 64);
    service.stopServingReads();
    MapOutputsCall c = ask(JOB_A, 0, key(tokenA), m0);
    assertEquals(503, c.status(), c.text());
    assertEquals(0, service.transportMetrics().memory().registeredBytes());
  }

  @Test
  void aBadSettingFailsTheServiceStartNamingKeyAndValue() {
    Exception e =
        assertThrows(
            Exception.class,
            () -> start(Map.of("mapreduce.shuffle.rdma.transport", "carrier-pigeon")));
    String all = e.toString() + (e.getCause() == null ? "" : e.getCause().toString());
    assertTrue(all.contains("mapreduce.shuffle.rdma.transport=carrier-pigeon"), all);
    Exception typo =
        assertThrows(
            Exception.class,
            () -> start(Map.of("mapreduce.shuffle.rdma.serve.maxPinedBytes", "1g")));
    assertTrue(String.valueOf(typo.getMessage()).contains("unknown setting"), typo.toString());
  }

  @Test
  void anOutputTheTransportWontRegisterIsUnavailableNotAFailureOfTheMap() throws Exception {
    service.stop();
    RefusingTransports refusing = new RefusingTransports();
    RdmaShuffleHandler.transportSelector(refusing.selector());
    try {
      service = start(Map.of("mapreduce.shuffle.rdma.transport", "tcp"));
    } finally {
      RdmaShuffleHandler.transportSelector(null);
    }
    service.initializeApplication(JobTokens.init(JOB_A, USER, tokenA));
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    TaskAttemptID m1 = FakeMapOutputs.map(JOB_A, 1);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 20, 100, 200);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m1, 21, 300, 400);
    assertEquals(Status.OK, ask(JOB_A, 0, key(tokenA), m0).answer().maps().get(0).status());

    refusing.refuse(true); // memlock exhausted: m0, leased to its reader, is not evicted for it
    LocateAnswer.Located e = ask(JOB_A, 0, key(tokenA), m1).answer().maps().get(0);
    assertEquals(Status.UNAVAILABLE, e.status(), e.message());
    assertTrue(e.message().contains("could not be registered"), e.message());
    assertEquals(1, service.registeredOutputs(), "m0 stays registered for its reader");

    refusing.refuse(false);
    assertEquals(Status.OK, ask(JOB_A, 0, key(tokenA), m1).answer().maps().get(0).status());
  }

  /** A job's end is withdrawn in one place (the catalog, which tells the transport), once. */
  @Test
  void aJobsEndWithdrawsItFromTheTransportOnce() throws Exception {
    service.stop();
    RefusingTransports counting = new RefusingTransports();
    RdmaShuffleHandler.transportSelector(counting.selector());
    try {
      service = start(Map.of("mapreduce.shuffle.rdma.transport", "tcp"));
    } finally {
      RdmaShuffleHandler.transportSelector(null);
    }
    service.initializeApplication(JobTokens.init(JOB_A, USER, tokenA));
    service.stopApplication(JobTokens.stop(JOB_A));
    assertEquals(1, counting.withdrawals.get());
  }

  @Test
  void requestsBeyondTheBoundedAnswerQueueAreToldToComeBackNotQueuedUnauthenticated()
      throws Exception {
    service.stop();
    service =
        start(
            Map.of(
                "mapreduce.shuffle.rdma.call.workers",
                "1",
                "mapreduce.shuffle.rdma.call.queue",
                "2"));
    service.initializeApplication(JobTokens.init(JOB_A, USER, tokenA));
    TaskAttemptID m0 = FakeMapOutputs.map(JOB_A, 0);
    FakeMapOutputs.write(dirs.dirs().get(0), JOB_A, USER, m0, 20, 100, 200);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    RdmaShuffleHandler.afterAnswer(
        s -> {
          try {
            release.await(30, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    java.util.concurrent.ExecutorService callers =
        java.util.concurrent.Executors.newFixedThreadPool(6);
    try {
      List<java.util.concurrent.Future<MapOutputsCall>> calls = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        // unsigned: the queue bound holds before anything is authenticated
        calls.add(callers.submit(() -> ask(JOB_A, 0, null, m0)));
      }
      // one answering, two waiting: the other three, whichever came last, are told to come back
      // at once, while the three held stay unanswered
      List<java.util.concurrent.Future<MapOutputsCall>> answered = new ArrayList<>();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
      while (answered.size() < 3 && System.nanoTime() - deadline < 0) {
        answered.clear();
        for (java.util.concurrent.Future<MapOutputsCall> f : calls) {
          if (f.isDone()) {
            answered.add(f);
          }
        }
        Thread.sleep(10);
      }
      assertEquals(3, answered.size(), "calls answered while the queue is full");
      for (java.util.concurrent.Future<MapOutputsCall> f : answered) {
        MapOutputsCall c = f.get();
        assertEquals(429, c.status(), c.text());
      }
      Thread.sleep(200);
      assertEquals(
          3, calls.stream().filter(f -> f.isDone()).count(), "the three held are not answered");
      release.countDown();
      for (java.util.concurrent.Future<MapOutputsCall> f : calls) {
        if (!answered.contains(f)) {
          assertEquals(401, f.get(30, java.util.concurrent.TimeUnit.SECONDS).status());
        }
      }
    } finally {
      release.countDown();
      RdmaShuffleHandler.afterAnswer(null);
      callers.shutdownNow();
    }
    assertEquals(Status.OK, ask(JOB_A, 0, key(tokenA), m0).answer().maps().get(0).status());
  }
}
