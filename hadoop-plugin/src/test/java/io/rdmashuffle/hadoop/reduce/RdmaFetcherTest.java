/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import static org.junit.jupiter.api.Assertions.*;

import com.sun.net.httpserver.HttpServer;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.hadoop.testing.FakeMapOutputs;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.TcpRelay;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.HandshakeLayout;
import io.rdmashuffle.transport.tcp.TcpTransport;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.InputSplit;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.util.Progress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one fetcher tells Hadoop's shuffle scheduler for each way a copy can end, with a real server
 * transport and reader runtime, and fakes for the node's answer, the merge and the HTTP fallback:
 * as Hadoop's own Fetcher would tell it.
 */
@Timeout(120)
class RdmaFetcherTest {
  private static final JobID JOB = FakeMapOutputs.job(9);
  private static final byte[] SHUFFLE_SECRET =
      "fetcher-test-shuffle-secret".getBytes(StandardCharsets.UTF_8);
  private static final int SEGMENT = 3000;
  private static final AtomicInteger REDUCES = new AtomicInteger();

  @TempDir Path dir;
  private final List<AutoCloseable> closeAfter = new ArrayList<>();
  private TcpTransport server;
  private RegisteredFile file;
  private ReadSide side;
  private RecordingScheduler scheduler;
  private Counters counters;
  private final FakeMerger merger = new FakeMerger();
  private final FakeHttp http = new FakeHttp();

  /** Hadoop's fetch retry as the task reads it from its job: off unless a test sets it. */
  private FetchRetry retry = FetchRetry.of(new JobConf(false));

  @BeforeAll
  static void metrics() {
    DefaultMetricsSystem.setMiniClusterMode(true);
  }

  @AfterEach
  void close() throws Exception {
    if (scheduler != null) {
      scheduler.close();
    }
    if (side != null) {
      side.close();
    }
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
  }

  private static TaskAttemptID map(int i) {
    return FakeMapOutputs.map(JOB, i);
  }

  private static byte[] transportSecret() {
    return JobSecrets.transportSecret(SHUFFLE_SECRET, JOB.toString());
  }

  /**
   * A fetcher reading as this task, with {@code settings}, asking the locator made for the server
   * transport.
   */
  private RdmaFetcher<Object, Object> fetcher(
      Map<String, String> settings,
      Function<TcpTransport, NodeLocator> locator,
      boolean withTransport)
      throws Exception {
    Map<String, String> all =
        new HashMap<>(
            Map.of(
                "mapreduce.shuffle.rdma.transport", "tcp",
                "mapreduce.shuffle.rdma.host", "127.0.0.1",
                "mapreduce.shuffle.rdma.read.timeout", "5s",
                "mapreduce.shuffle.rdma.fetch.chunkSize", "64k"));
    all.putAll(settings);
    RdmaConf conf = RdmaConf.of(MapReduceConfig.SCHEMA, all);
    server =
        Transports.tcp(
            conf,
            ApplicationSecrets.of(JOB.toString(), transportSecret()),
            "127.0.0.1",
            new TransportMetrics());
    closeAfter.add(server);
    file =
        RegisteredFile.open(
            Patterns.file(dir.resolve("file.out"), 4L * SEGMENT, 5),
            65536,
            server.registrar(),
            JOB.toString());
    closeAfter.add(file::close);
    NodeRuntime runtime =
        withTransport
            ? NodeRuntime.start(
                new NodeRuntime.Context()
                    .conf(conf.with(Map.of(io.rdmashuffle.config.RdmaShuffleConfig.PORT, "0")))
                    .defaultHost("127.0.0.1")
                    .secrets(ApplicationSecrets.of(JOB.toString(), transportSecret()))
                    .reading(true))
            : null;
    counters = new Counters();
    Reporter reporter = reporter(counters);
    side =
        new ReadSide(
            conf,
            JOB.toString(),
            0,
            runtime,
            withTransport ? null : "none (test)",
            locator.apply(server),
            retry,
            1,
            300,
            reporter);
    JobConf job = new JobConf(false);
    job.setNumMapTasks(4);
    TaskAttemptID reduce =
        new TaskAttemptID(
            JOB.getJtIdentifier(), JOB.getId(), TaskType.REDUCE, REDUCES.incrementAndGet(), 0);
    scheduler = new RecordingScheduler(job, reduce, counters);
    return new RdmaFetcher<>(
        1,
        side,
        scheduler,
        merger,
        ShuffleClientMetrics.create(reduce, job),
        reporter,
        t -> scheduler.events.add("exception " + t),
        http);
  }

  /** The host holding {@code maps}, taken from the scheduler as a fetcher takes it. */
  private MapHost host(String name, TaskAttemptID... maps) throws InterruptedException {
    for (TaskAttemptID m : maps) {
      scheduler.addKnownMapOutput(
          name, "http://" + name + "/mapOutput?job=" + JOB + "&reduce=0&map=", m);
    }
    return scheduler.getHost();
  }

  /** Where map i's partition 0 lies: segment i of the registered file. */
  private LocateAnswer.Located located(int i) {
    return LocateAnswer.Located.ok(
        map(i).toString(),
        file.descriptor(),
        new PartitionTable(
            0,
            new long[] {(long) i * SEGMENT},
            new long[] {SEGMENT},
            new long[] {SEGMENT},
            ChecksumAlgorithm.NONE,
            null));
  }

  private NodeLocator answering(PeerAddress responder, int... maps) {
    return (host, asked) -> {
      List<LocateAnswer.Located> out = new ArrayList<>();
      for (int i : maps) {
        out.add(located(i));
      }
      return new LocateAnswer(TransportKind.TCP, responder, out);
    };
  }

  private List<String> failures() {
    return scheduler.events.stream().filter(e -> e.startsWith("copyFailed")).toList();
  }

  private long count(String prefix) {
    return scheduler.events.stream().filter(e -> e.startsWith(prefix)).count();
  }

  @Test
  void aCorruptMapIsAReadErrorAndGoesBackToTheSchedulerTheHostFailingOncePerRound()
      throws Exception {
    RdmaFetcher<Object, Object> f =
        fetcher(Map.of(), s -> answering(s.localAddress(), 0, 1, 2), true);
    merger.corrupt.add(map(0).toString());
    merger.corrupt.add(map(1).toString());
    MapHost host = host("node-a:13562", map(0), map(1), map(2));

    f.copyFromHost(host);

    assertEquals(Set.of(map(2).toString()), merger.committed.keySet());
    assertEquals(
        List.of(
            "copyFailed " + map(0) + " read=true connect=false",
            "copyFailed " + map(1) + " read=true connect=false"),
        failures());
    assertEquals(1, count("hostFailed"), "the host's failure counts once per round");
    assertEquals(
        2,
        host.getNumKnownMapOutputs(),
        "both failed maps are back with the scheduler, to be fetched again");
    assertEquals(0, http.rounds.get());
  }

  @Test
  void aBusyNodeIsPenalizedAndAskedAgainLaterNotFetchedOverHttp() throws Exception {
    HttpServer busy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    busy.createContext(
        MapOutputsRequest.PATH,
        x -> {
          // a minute: the penalty must still hold when the test looks, however slow the machine
          x.getResponseHeaders().add("Retry-After", "60000");
          x.sendResponseHeaders(429, -1);
          x.close();
        });
    busy.start();
    closeAfter.add(() -> busy.stop(0));
    MapOutputsClient client =
        new MapOutputsClient(
            new JobConf(false),
            JOB.toString(),
            0,
            JobTokenSecretManager.createSecretKey(SHUFFLE_SECRET));
    RdmaFetcher<Object, Object> f = fetcher(Map.of(), s -> client, true);
    MapHost host = host("127.0.0.1:" + busy.getAddress().getPort(), map(0), map(1));

    f.copyFromHost(host);

    assertEquals(MapHost.State.PENALIZED, host.getState());
    assertEquals(2, host.getNumKnownMapOutputs(), "its maps wait for the next round");
    assertEquals(List.of(), failures(), "a busy node is nobody's failure");
    assertEquals(0, http.rounds.get());
    assertFalse(side.usesHttp(host), "the node is READ from again after the penalty");
  }

  @Test
  void readsThatFailInTheTransportGoOverHttpThisRoundAndAreReadAgainNextRound() throws Exception {
    int dead;
    try (ServerSocket s = new ServerSocket(0)) {
      dead = s.getLocalPort();
    }
    RdmaFetcher<Object, Object> f =
        fetcher(Map.of(), s -> answering(new PeerAddress("127.0.0.1", dead), 0), true);
    MapHost host = host("node-b:13562", map(0));

    f.copyFromHost(host);

    assertEquals(1, http.rounds.get(), "this round's maps over HTTP");
    assertEquals(List.of(map(0).toString()), http.fetched);
    assertEquals(List.of(), failures(), "HTTP copies it: not a failure of the map");
    assertFalse(side.usesHttp(host), "the next round READs again");
  }

  private static int deadPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The job's fetch retry settings, as a reduce task reads them. */
  private static FetchRetry retrySettings(String... keysAndValues) {
    JobConf job = new JobConf(false);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      job.set(keysAndValues[i], keysAndValues[i + 1]);
    }
    return FetchRetry.of(job);
  }

  /** A real locate request to {@code host}, refused while nothing listens on its port. */
  private static MapOutputsClient locateClient() {
    return new MapOutputsClient(
        new JobConf(false),
        JOB.toString(),
        0,
        JobTokenSecretManager.createSecretKey(SHUFFLE_SECRET));
  }

  /** Runs the fetcher's own loop until {@code maps} are committed or 20 s have passed. */
  private void runUntilCommitted(RdmaFetcher<Object, Object> f, int maps) throws Exception {
    f.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (merger.committed.size() < maps && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    f.shutDown();
  }

  @Test
  void whileItsNodeManagerRestartsARefusingNodeIsAskedAgainAfterTheIntervalAndNoMapFails()
      throws Exception {
    // NodeManager recovery on: Hadoop's fetch retry defaults to on
    retry =
        retrySettings(
            "yarn.nodemanager.recovery.enabled", "true",
            "mapreduce.reduce.shuffle.fetch.retry.interval-ms", "50");
    assertTrue(retry.enabled());
    MapOutputsClient refused = locateClient();
    AtomicInteger asked = new AtomicInteger();
    RdmaFetcher<Object, Object> f =
        fetcher(
            Map.of(),
            s -> {
              NodeLocator restarted = answering(s.localAddress(), 0, 1);
              return (h, m) ->
                  asked.incrementAndGet() <= 3 ? refused.request(h, m) : restarted.request(h, m);
            },
            true);
    String node = "127.0.0.1:" + deadPort();
    for (TaskAttemptID m : List.of(map(0), map(1))) {
      scheduler.addKnownMapOutput(node, "http://" + node + "/mapOutput?job=" + JOB, m);
    }

    runUntilCommitted(f, 2);

    assertEquals(
        Set.of(map(0).toString(), map(1).toString()),
        merger.committed.keySet(),
        String.valueOf(scheduler.events));
    assertEquals(List.of(), failures(), "no map is reported while the node restarts");
    assertEquals(0, count("hostFailed"));
    assertEquals(0, http.rounds.get(), "nor is the node fetched over HTTP");
    assertEquals(4, asked.get(), "refused three times, then answered");
    assertEquals(3, counters.getCounter(RdmaShuffleCounter.NODE_RETRIES), "each wait counted");
  }

  @Test
  void whileItsNodeManagerRestartsReadsThatCantConnectAreTriedAgainNotFetchedOverHttp()
      throws Exception {
    retry =
        retrySettings(
            "mapreduce.reduce.shuffle.fetch.retry.enabled", "true",
            "mapreduce.reduce.shuffle.fetch.retry.interval-ms", "50");
    int dead = deadPort();
    AtomicInteger asked = new AtomicInteger();
    RdmaFetcher<Object, Object> f =
        fetcher(
            Map.of(),
            s -> {
              NodeLocator down = answering(new PeerAddress("127.0.0.1", dead), 0);
              NodeLocator up = answering(s.localAddress(), 0);
              return (h, m) -> asked.incrementAndGet() <= 2 ? down.request(h, m) : up.request(h, m);
            },
            true);
    scheduler.addKnownMapOutput("node-r:13562", "http://node-r:13562/mapOutput", map(0));

    runUntilCommitted(f, 1);

    assertEquals(Set.of(map(0).toString()), merger.committed.keySet());
    assertEquals(List.of(), failures(), String.valueOf(scheduler.events));
    assertEquals(0, http.rounds.get());
    assertEquals(3, asked.get());
    assertEquals(2, counters.getCounter(RdmaShuffleCounter.NODE_RETRIES));
  }

  /** A relay to {@code server}'s READ port, closed after the test. */
  private TcpRelay relayTo(PeerAddress server) {
    try {
      TcpRelay r = new TcpRelay(new InetSocketAddress("127.0.0.1", server.port()));
      closeAfter.add(r);
      return r;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void whileItsNodeManagerStopsReadsCutOffMidSegmentAreTriedAgainNotFetchedOverHttp()
      throws Exception {
    retry =
        retrySettings(
            "mapreduce.reduce.shuffle.fetch.retry.enabled", "true",
            "mapreduce.reduce.shuffle.fetch.retry.interval-ms", "50");
    AtomicInteger asked = new AtomicInteger();
    RdmaFetcher<Object, Object> f =
        fetcher(
            Map.of(),
            s -> {
              // the NodeManager stops while the first READ's answer is on its way: the server
              // hangs up after its handshake and half the segment
              TcpRelay stopping = relayTo(s.localAddress());
              stopping.cutAfter(
                  HandshakeLayout.CHALLENGE_BYTES + HandshakeLayout.RESULT_BYTES + SEGMENT / 2);
              NodeLocator cut = answering(new PeerAddress("127.0.0.1", stopping.port()), 0);
              NodeLocator restarted = answering(s.localAddress(), 0);
              return (h, m) ->
                  asked.incrementAndGet() <= 1 ? cut.request(h, m) : restarted.request(h, m);
            },
            true);
    scheduler.addKnownMapOutput("node-s:13562", "http://node-s:13562/mapOutput", map(0));

    runUntilCommitted(f, 1);

    assertEquals(Set.of(map(0).toString()), merger.committed.keySet());
    assertEquals(List.of(), failures(), String.valueOf(scheduler.events));
    assertEquals(0, http.rounds.get(), "a stopping node is not fetched over HTTP either");
    assertEquals(2, asked.get());
    assertEquals(1, counters.getCounter(RdmaShuffleCounter.NODE_RETRIES));
  }

  @Test
  void withFetchRetryOffARefusingNodeIsAConnectFailureOfEachMapAtOnce() throws Exception {
    retry = retrySettings("mapreduce.reduce.shuffle.fetch.retry.enabled", "false");
    assertFalse(retry.enabled());
    RdmaFetcher<Object, Object> f =
        fetcher(
            Map.of("mapreduce.shuffle.rdma.fetch.httpFallback", "false"),
            s -> locateClient(),
            true);
    MapHost host = host("127.0.0.1:" + deadPort(), map(0), map(1));

    f.copyFromHost(host);

    assertEquals(
        List.of(
            "copyFailed " + map(0) + " read=false connect=true",
            "copyFailed " + map(1) + " read=false connect=true"),
        failures());
    assertEquals(1, count("hostFailed"));
    assertEquals(2, host.getNumKnownMapOutputs());
  }

  @Test
  void aNodeStillRefusingAfterTheRetryTimeoutIsTreatedAsUnreachable() throws Exception {
    retry =
        retrySettings(
            "mapreduce.reduce.shuffle.fetch.retry.enabled", "true",
            "mapreduce.reduce.shuffle.fetch.retry.interval-ms", "50",
            "mapreduce.reduce.shuffle.fetch.retry.timeout-ms", "1000");
    MapOutputsClient refused = locateClient();
    AtomicInteger asked = new AtomicInteger();
    RdmaFetcher<Object, Object> f =
        fetcher(
            Map.of("mapreduce.shuffle.rdma.fetch.httpFallback", "false"),
            s ->
                (h, m) -> {
                  asked.incrementAndGet();
                  return refused.request(h, m);
                },
            true);
    String node = "127.0.0.1:" + deadPort();
    scheduler.addKnownMapOutput(node, "http://" + node + "/mapOutput", map(0));
    long t0 = System.nanoTime();
    f.start();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(20);
    while (failures().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    f.shutDown();

    assertEquals(
        "copyFailed " + map(0) + " read=false connect=true",
        failures().get(0),
        String.valueOf(scheduler.events));
    assertTrue(millis >= 1000, "reported after " + millis + " ms, before the retry timeout");
    assertTrue(asked.get() > 2, "asked " + asked.get() + " times");
  }

  @Test
  void theReadersOwnShortageOfBuffersIsALocalErrorNeverAFailureOfTheMap() throws Exception {
    RdmaFetcher<Object, Object> f =
        fetcher(
            Map.of(
                "mapreduce.shuffle.rdma.buffers.maxBytes",
                "1m",
                "mapreduce.shuffle.rdma.buffers.chunkSize",
                "1m"),
            s -> answering(s.localAddress(), 0),
            true);
    // every buffer of the task's pool is taken: the READ can't get one
    List<PooledBuffer> held = new ArrayList<>();
    PooledBuffer b;
    while ((b = side.buffers.tryAllocate(65536)) != null) {
      held.add(b);
    }
    assertFalse(held.isEmpty());
    closeAfter.add(() -> held.forEach(PooledBuffer::release));
    MapHost host = host("node-c:13562", map(0));

    f.copyFromHost(host);

    assertEquals(1, count("localError"), String.valueOf(scheduler.events));
    assertEquals(List.of(), failures(), "the map is not at fault");
    assertEquals(0, http.rounds.get());
    assertEquals(1, host.getNumKnownMapOutputs());
  }

  @Test
  void aNodeThatAnswersAPrefixIsAskedForTheRestAndNoMapFails() throws Exception {
    // a node whose answers are bounded (call.maxAnswerBytes) answers one map a call here
    List<Integer> asked = new ArrayList<>();
    NodeLocator prefix =
        (host, maps) -> {
          asked.add(maps.size());
          List<LocateAnswer.Located> out = new ArrayList<>();
          out.add(located(maps.get(0).getTaskID().getId()));
          for (TaskAttemptID m : maps.subList(1, maps.size())) {
            out.add(LocateAnswer.Located.failed(m.toString(), LocateAnswer.Status.DEFERRED, ""));
          }
          return new LocateAnswer(TransportKind.TCP, server.localAddress(), out);
        };
    RdmaFetcher<Object, Object> f = fetcher(Map.of(), s -> prefix, true);
    MapHost host = host("node-p:13562", map(0), map(1), map(2));

    f.copyFromHost(host);

    assertEquals(
        Set.of(map(0).toString(), map(1).toString(), map(2).toString()), merger.committed.keySet());
    assertEquals(List.of(3, 2, 1), asked, "asked again for what was deferred");
    assertEquals(List.of(), failures(), "a deferred map is nobody's failure");
    assertEquals(0, http.rounds.get());
  }

  /**
   * A BUSY entry (every registration of the node leased to readers still READing, or another
   * reducer's registration of the same output still under way) is "ask again later": the host is
   * penalized for the retry interval and the map waits for the next round, never HTTP. Found by
   * MultiUserClusterIT and NodeManagerRestartTest (FALLBACK_FETCHES 2, no fallback node: three
   * reducers located one map output at once on a loaded host); seen failing first.
   */
  @Test
  void aBusyOutputIsAskedAgainAfterThePenaltyNotFetchedOverHttp() throws Exception {
    NodeLocator busy =
        (host, asked) ->
            new LocateAnswer(
                TransportKind.TCP,
                new PeerAddress("127.0.0.1", 1),
                List.of(
                    LocateAnswer.Located.failed(
                        asked.get(0).toString(), LocateAnswer.Status.BUSY, "leased (test)")));
    // a penalty of a minute: it must still hold when the test looks, however slow the machine
    retry = retrySettings("mapreduce.reduce.shuffle.fetch.retry.interval-ms", "60000");
    RdmaFetcher<Object, Object> f = fetcher(Map.of(), s -> busy, true);
    MapHost host = host("node-b:13562", map(0));

    f.copyFromHost(host);

    assertEquals(0, http.rounds.get(), "a busy output is not fetched over HTTP");
    assertEquals(MapHost.State.PENALIZED, host.getState());
    assertEquals(1, host.getNumKnownMapOutputs(), "its map waits for the next round");
    assertEquals(List.of(), failures(), "a busy node is nobody's failure");
    assertFalse(side.usesHttp(host));
  }

  @Test
  void withoutHttpFallbackAnOutputTheNodeCantRegisterIsNeverFetchedOverHttp() throws Exception {
    NodeLocator unavailable =
        (host, asked) ->
            new LocateAnswer(
                TransportKind.TCP,
                new PeerAddress("127.0.0.1", 1),
                List.of(
                    LocateAnswer.Located.failed(
                        asked.get(0).toString(),
                        LocateAnswer.Status.UNAVAILABLE,
                        "memlock (test)")));
    RdmaFetcher<Object, Object> f =
        fetcher(
            Map.of("mapreduce.shuffle.rdma.fetch.httpFallback", "false"), s -> unavailable, true);
    MapHost host = host("node-d:13562", map(0));

    f.copyFromHost(host);

    assertEquals(0, http.rounds.get(), "fetch.httpFallback=false");
    assertEquals(List.of("copyFailed " + map(0) + " read=false connect=false"), failures());
    assertEquals(1, host.getNumKnownMapOutputs());
  }

  @Test
  void shutDownClosesTheHttpConnectionBeforeJoining() throws Exception {
    RdmaFetcher<Object, Object> f = fetcher(Map.of(), s -> null, false);
    http.blockUntilAborted = true;
    scheduler.addKnownMapOutput("node-e:13562", "http://node-e:13562/mapOutput", map(0));
    f.start();
    assertTrue(http.entered.await(10, TimeUnit.SECONDS));
    long t0 = System.nanoTime();
    f.shutDown();
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertFalse(f.isAlive());
    assertTrue(millis < 3000, "shutDown took " + millis + " ms: it waited for the HTTP read");
  }

  private static Reporter reporter(Counters counters) {
    return new Reporter() {
      @Override
      public void setStatus(String status) {}

      @Override
      public Counters.Counter getCounter(Enum<?> name) {
        return counters.findCounter(name);
      }

      @Override
      public Counters.Counter getCounter(String group, String name) {
        return counters.findCounter(group, name);
      }

      @Override
      public void incrCounter(Enum<?> key, long amount) {
        counters.incrCounter(key, amount);
      }

      @Override
      public void incrCounter(String group, String counter, long amount) {
        counters.incrCounter(group, counter, amount);
      }

      @Override
      public InputSplit getInputSplit() {
        throw new UnsupportedOperationException();
      }

      @Override
      public float getProgress() {
        return 0;
      }

      @Override
      public void progress() {}
    };
  }

  /** Hadoop's scheduler, recording what fetchers tell it about failures. */
  static final class RecordingScheduler extends ShuffleSchedulerImpl<Object, Object> {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());

    RecordingScheduler(JobConf job, TaskAttemptID reduce, Counters c) {
      super(
          job,
          null,
          reduce,
          t -> {},
          new Progress(),
          c.findCounter("test", "shuffled"),
          c.findCounter("test", "bytes"),
          c.findCounter("test", "failed"));
    }

    @Override
    public synchronized void copyFailed(TaskAttemptID m, MapHost h, boolean read, boolean connect) {
      events.add("copyFailed " + m + " read=" + read + " connect=" + connect);
    }

    @Override
    public synchronized void hostFailed(String h) {
      events.add("hostFailed " + h);
    }

    @Override
    public void reportLocalError(IOException e) {
      events.add("localError " + e);
    }

    @Override
    public synchronized void copySucceeded(
        TaskAttemptID m, MapHost h, long bytes, long start, long end, MapOutput<Object, Object> out)
        throws IOException {
      events.add("copied " + m);
      out.commit();
    }
  }

  /** The merge: takes every segment into memory; the maps named corrupt fail their checksum. */
  static final class FakeMerger implements MergeManager<Object, Object> {
    final Set<String> corrupt = ConcurrentHashMap.newKeySet();
    final Map<String, byte[]> committed = new ConcurrentHashMap<>();

    @Override
    public void waitForResource() {}

    @Override
    public MapOutput<Object, Object> reserve(TaskAttemptID mapId, long size, int fetcher) {
      return new MapOutput<>(mapId, size, true) {
        private byte[] bytes;

        @Override
        public void shuffle(
            MapHost host,
            InputStream input,
            long compressed,
            long raw,
            ShuffleClientMetrics metrics,
            Reporter reporter)
            throws IOException {
          bytes = input.readNBytes((int) compressed);
          if (bytes.length != compressed) {
            throw new IOException("segment ended at " + bytes.length);
          }
          if (corrupt.contains(mapId.toString())) {
            throw new ChecksumException("checksum error (test)", 0);
          }
        }

        @Override
        public void commit() {
          committed.put(mapId.toString(), bytes);
        }

        @Override
        public void abort() {}

        @Override
        public String getDescription() {
          return "MEMORY (test)";
        }
      };
    }

    @Override
    public RawKeyValueIterator close() {
      return null;
    }
  }

  /** The stock HTTP fetch: copies whatever the host has (or blocks until its connection closes). */
  final class FakeHttp implements HttpFallback {
    final AtomicInteger rounds = new AtomicInteger();
    final List<String> fetched = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch aborted = new CountDownLatch(1);
    volatile boolean blockUntilAborted;

    @Override
    public void copyFrom(MapHost host) throws IOException {
      rounds.incrementAndGet();
      if (blockUntilAborted) {
        entered.countDown();
        try {
          // a read on an HTTP connection ignores interrupts: only closing it ends it
          if (!aborted.await(30, TimeUnit.SECONDS)) {
            throw new IOException("read timed out (test)");
          }
        } catch (InterruptedException e) {
          // the stock fetcher's socket read does not see interrupts; neither does this one
          try {
            aborted.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException again) {
            Thread.currentThread().interrupt();
          }
        }
        throw new IOException("connection closed (test)");
      }
      for (TaskAttemptID m : scheduler.getMapsForHost(host)) {
        fetched.add(m.toString());
      }
    }

    @Override
    public void abortConnection() {
      aborted.countDown();
    }

    @Override
    public void shutDown() {}
  }
}
