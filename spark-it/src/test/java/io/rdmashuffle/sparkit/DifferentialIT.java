/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.spark.FetchFailed;
import org.apache.spark.MapOutputTracker;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.shuffle.rdma.RdmaShuffleManager;
import org.apache.spark.shuffle.rdma.SparkConfig;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * The same jobs on the stock shuffle and on ours, results asserted equal, in two executor processes
 * ({@code local-cluster[2,1,1024]}) and in {@code local[2]}. Each application also runs the checks
 * that need its settings: a corrupted block (defaults), a foreign peer and a soak of 100 shuffles
 * (authenticated, encrypted, everything through the transport).
 */
@Timeout(900)
class DifferentialIT {
  @BeforeAll
  static void stockResultsFirst() {
    Differential.reference(); // one application at a time: compute them before any of ours
  }

  /** Java serializer, defaults: same-host blocks read from files, Spark's checksums. */
  @Test
  void javaSerializerWithDefaults() throws Exception {
    Path work = ItCluster.workDir("java");
    SparkSession s =
        Differential.start(
            ItCluster.localCluster("differential-java", work)
                .set("spark.serializer", "org.apache.spark.serializer.JavaSerializer"));
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      Differential.assertSameAsStock(s);
      Map<String, Map<String, Long>> p = ItCluster.probe(sc);
      assertTrue(ItCluster.total(p, "mapOutputsPublished") > 0, p.toString());
      assertTrue(ItCluster.total(p, "blocksLocal") > 0, p.toString());
      assertTrue(ItCluster.total(p, "readersOfMapRanges") > 0, "AQE read no map range: " + p);
      assertEquals(0, ItCluster.total(p, "fallbacks"), p.toString());
      assertEquals(0, ItCluster.total(p, "checksumMismatches"), p.toString());
      aCorruptedBlockIsDetectedAndRecomputed(sc, work);
    } finally {
      Differential.stop(s);
    }
  }

  private static void aCorruptedBlockIsDetectedAndRecomputed(JavaSparkContext sc, Path work)
      throws IOException, TimeoutException {
    AtomicInteger fetchFailures = new AtomicInteger();
    sc.sc()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onTaskEnd(SparkListenerTaskEnd end) {
                if (end.reason() instanceof FetchFailed) {
                  fetchFailures.incrementAndGet();
                }
              }
            });
    JavaPairRDD<Integer, Long> sums =
        DifferentialCases.pairs(sc, 100_000, 5000, 4).reduceByKey(Long::sum, 4);
    List<String> first = canonical(sums);
    int shuffleId = shuffleIdOf(sums);
    Path victim = largestDataFile(shuffleId, sc.sc().startTime());
    flipByte(victim, Files.size(victim) / 2);
    // the map stage is skipped: the reduce stage reads the corrupted block, sees the checksum
    // mismatch, fails the fetch; Spark re-runs the lost map outputs
    List<String> second = canonical(sums);
    sc.sc().listenerBus().waitUntilEmpty(30_000);
    assertEquals(first, second);
    assertTrue(fetchFailures.get() >= 1, "the corrupted block was not detected");
    Map<String, Map<String, Long>> p = ItCluster.probe(sc);
    // caught by our checksum, or first by Spark's decompressor: a fetch failure either way
    assertTrue(
        ItCluster.total(p, "checksumMismatches") + ItCluster.total(p, "fetchFailures.stream") >= 1,
        p.toString());
  }

  static List<String> canonical(JavaPairRDD<Integer, Long> r) {
    List<String> l = new ArrayList<>(r.map(t -> t._1() + "=" + t._2()).collect());
    Collections.sort(l);
    return l;
  }

  static int shuffleIdOf(JavaPairRDD<?, ?> r) {
    return ((ShuffleDependency<?, ?, ?>) r.rdd().dependencies().head()).shuffleId();
  }

  /**
   * The largest data file of the shuffle written since {@code since}. Executors of every
   * application in this JVM share the first application's local directories (Spark caches them per
   * JVM), so this looks under every test's work directory.
   */
  private static Path largestDataFile(int shuffleId, long since) throws IOException {
    String prefix = "shuffle_" + shuffleId + "_";
    try (Stream<Path> files = Files.walk(Path.of(ItCluster.property("rdma.it.workDir")))) {
      return files
          .filter(
              f ->
                  f.getFileName().toString().startsWith(prefix)
                      && f.getFileName().toString().endsWith("_0.data")
                      && f.toFile().lastModified() >= since - 1000)
          .max((a, b) -> Long.compare(a.toFile().length(), b.toFile().length()))
          .orElseThrow(() -> new AssertionError("no data file of shuffle " + shuffleId));
    }
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, position);
      b.put(0, (byte) (b.get(0) ^ 0xff)).rewind();
      ch.write(b, position);
    }
  }

  /**
   * Kryo (what the benchmarks use), spark.authenticate and I/O encryption on (so the map side
   * computes CRC32C itself), every block through the transport, small READ segments and registered
   * pieces (large partitions span pieces and are streamed), small in-flight bounds.
   */
  @Test
  void kryoAuthenticatedEncryptedThroughTheTransport() throws Exception {
    Path work = ItCluster.workDir("kryo");
    SparkConf conf =
        ItCluster.localCluster("differential-kryo", work)
            .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
            .set("spark.authenticate", "true")
            .set("spark.authenticate.secret", "differential-kryo-test-secret")
            .set("spark.io.encryption.enabled", "true")
            .set("spark.shuffle.rdma.read.local", "false")
            .set("spark.shuffle.rdma.read.segmentSize", "256k")
            .set("spark.shuffle.rdma.memory.pieceSize", "1m")
            .set("spark.reducer.maxSizeInFlight", "4m")
            .set("spark.reducer.maxReqsInFlight", "16");
    SparkSession s = Differential.start(conf);
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      Differential.assertSameAsStock(s);
      Map<String, Map<String, Long>> p = ItCluster.probe(sc);
      assertEquals(0, ItCluster.total(p, "blocksLocal"), p.toString());
      assertTrue(ItCluster.total(p, "blocksRemote") > 0, p.toString());
      assertTrue(ItCluster.total(p, "bytesRead") > 0, p.toString());
      assertTrue(ItCluster.total(p, "readersOfMapRanges") > 0, "AQE read no map range: " + p);
      assertEquals(0, ItCluster.total(p, "fallbacks"), p.toString());
      aPeerWithoutTheSecretCannotConnect(sc);
      soakOf100ShufflesLeavesNothingBehind(sc);
    } finally {
      Differential.stop(s);
    }
  }

  private static void aPeerWithoutTheSecretCannotConnect(JavaSparkContext sc) throws Exception {
    JavaPairRDD<Integer, Long> sums =
        DifferentialCases.pairs(sc, 10_000, 100, 2).reduceByKey(Long::sum, 2);
    sums.count();
    String app = sc.sc().applicationId();
    byte[] right = RdmaShuffleManager.transportSecret(SparkEnv.get().securityManager(), app);
    OwnerMarker owner = anyOwner(shuffleIdOf(sums), 2);
    byte[] wrong = "not-the-application-secret".getBytes(StandardCharsets.UTF_8);
    try (Transport t = probe(ApplicationSecrets.of(app, wrong), "other-app", wrong)) {
      assertThrows(AuthenticationException.class, () -> t.connect(owner.address(), app).close());
      assertThrows(
          AuthenticationException.class, () -> t.connect(owner.address(), "other-app").close());
    }
    try (Transport t = probe(ApplicationSecrets.of(app, right), app, right);
        ReadChannel c = t.connect(owner.address(), app)) {
      assertTrue(c.isOpen());
    }
  }

  private static Transport probe(ApplicationSecrets secrets, String otherApp, byte[] secret)
      throws Exception {
    secrets.put(otherApp, secret);
    RdmaConf conf = RdmaConf.of(SparkConfig.SCHEMA, Map.of("spark.shuffle.rdma.transport", "tcp"));
    return TransportSelector.standard().start(conf, secrets, "127.0.0.1", new TransportMetrics());
  }

  /** An owner the driver's map output tracker names for the shuffle. */
  static OwnerMarker anyOwner(int shuffleId, int partitions) {
    MapOutputTracker tracker = SparkEnv.get().mapOutputTracker();
    Iterator<Tuple2<BlockManagerId, Seq<Tuple3<org.apache.spark.storage.BlockId, Object, Object>>>>
        it = tracker.getMapSizesByExecutorId(shuffleId, 0, Integer.MAX_VALUE, 0, partitions);
    while (it.hasNext()) {
      BlockManagerId id = it.next()._1();
      if (id.topologyInfo().isDefined() && OwnerMarker.isOurs(id.topologyInfo().get())) {
        return OwnerMarker.parse(id.topologyInfo().get());
      }
    }
    throw new AssertionError("no published map output in shuffle " + shuffleId);
  }

  private static void soakOf100ShufflesLeavesNothingBehind(JavaSparkContext sc) {
    for (int i = 0; i < 3; i++) {
      oneShuffleAndItsCleanup(sc, i); // warm up: connections, buffer pool, class loading
    }
    // and withdraw every earlier shuffle, so the garbage collector can't clean one meanwhile
    int last = sc.sc().newShuffleId();
    for (int id = 0; id <= last; id++) {
      sc.sc().cleaner().get().doCleanupShuffle(id, true);
    }
    Map<String, Map<String, Long>> before = ItCluster.probe(sc);
    for (int i = 0; i < 100; i++) {
      oneShuffleAndItsCleanup(sc, i);
    }
    Map<String, Map<String, Long>> after = ItCluster.probe(sc);
    for (String exec : before.keySet()) {
      Map<String, Long> b = before.get(exec);
      Map<String, Long> a = after.get(exec);
      String both = "executor " + exec + " before " + b + " after " + a;
      assertEquals(0L, b.get("mapOutputsServed"), both);
      assertEquals(0L, a.get("mapOutputsServed"), both);
      assertEquals(0L, a.get("serve.openOutputs"), both);
      assertEquals(0L, a.get("bufferPoolLentBytes"), both);
      assertEquals(
          b.get("registeredBytes") - b.get("bufferPoolBytes"),
          a.get("registeredBytes") - a.get("bufferPoolBytes"),
          "registered bytes: " + both);
      assertEquals(b.get("shuffleMappings"), a.get("shuffleMappings"), "mappings: " + both);
      assertEquals(b.get("shuffleFds"), a.get("shuffleFds"), "shuffle files open: " + both);
      assertTrue(a.get("fds") <= b.get("fds") + 8, "file descriptors: " + both);
    }
    assertTrue(
        ItCluster.total(after, "readers") >= ItCluster.total(before, "readers") + 100,
        "the soak's reduce tasks did not read through rdma-shuffle");
    System.out.println("soak of 100 shuffles: before " + before + "\nafter " + after);
  }

  private static void oneShuffleAndItsCleanup(JavaSparkContext sc, int seed) {
    JavaPairRDD<Integer, Long> r =
        DifferentialCases.pairs(sc, 2000 + seed, 100, 2).reduceByKey(Long::sum, 2);
    assertTrue(r.count() > 0);
    sc.sc().cleaner().get().doCleanupShuffle(shuffleIdOf(r), true);
  }

  /**
   * Spark encrypts its network traffic (spark.network.crypto.enabled, I/O encryption off): our
   * transport does not encrypt, so every shuffle runs Spark's stock shuffle, decided on the driver,
   * counted there; no executor publishes, serves or reads a block.
   */
  @Test
  void networkEncryptionRunsTheStockShuffle() throws Exception {
    Path work = ItCluster.workDir("crypto");
    SparkSession s =
        Differential.start(
            ItCluster.localCluster("differential-crypto", work)
                .set("spark.authenticate", "true")
                .set("spark.authenticate.secret", "differential-crypto-test-secret")
                .set("spark.network.crypto.enabled", "true")
                .set("spark.io.encryption.enabled", "false"));
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      Map<String, List<String>> ref = Differential.reference();
      List<String> cases = List.of("groupByKey", "join", "dataFrameSkewJoin");
      for (String c : cases) {
        Differential.assertSame(c, ref.get(c), DifferentialCases.all().get(c).apply(s));
      }
      RdmaShuffleManager driver = (RdmaShuffleManager) SparkEnv.get().shuffleManager();
      assertNotNull(driver.disabledCause());
      assertTrue(
          driver.disabledCause().contains("spark.network.crypto.enabled=true"),
          driver.disabledCause());
      Map<String, Long> d = driver.metricsSnapshot();
      assertTrue(d.get("fallbacks.networkEncryption") >= cases.size(), d.toString());
      assertEquals(d.get("fallbacks.networkEncryption"), d.get("fallbacks"), d.toString());
      Map<String, Map<String, Long>> p = ItCluster.probe(sc);
      for (String key :
          List.of(
              "mapOutputsPublished",
              "readers",
              "blocksRemote",
              "blocksLocal",
              "locates",
              "readsServed",
              "bufferPoolBytes")) {
        assertEquals(0, ItCluster.total(p, key), key + ": " + p);
      }
      assertTrue(ItCluster.executorLogs(sc.sc().applicationId()).size() >= 1);
    } finally {
      Differential.stop(s);
    }
  }

  /** Ours in one process: the driver runs the tasks and serves the map outputs. */
  @Test
  void localModeToo() {
    Path work = ItCluster.workDir("local");
    SparkConf conf =
        ItCluster.base("differential-local", work)
            .setMaster("local[2]")
            .set("spark.shuffle.manager", ItCluster.MANAGER)
            .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer");
    SparkSession s = Differential.start(conf);
    try {
      Differential.assertSameAsStock(s);
      Map<String, Long> m =
          ((RdmaShuffleManager) SparkEnv.get().shuffleManager()).metricsSnapshot();
      assertTrue(m.get("mapOutputsPublished") > 0, m.toString());
      assertEquals(0L, m.get("fallbacks"), m.toString());
    } finally {
      Differential.stop(s);
    }
  }
}
