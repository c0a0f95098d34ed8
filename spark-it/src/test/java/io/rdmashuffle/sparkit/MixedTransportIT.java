/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.OwnerMarker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.shuffle.rdma.RdmaShuffleManager;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * A cluster whose executors run different transports: executors 0 and 1 run verbs (one on each
 * Soft-RoCE device), executor 2 runs tcp. The application leaves {@code
 * spark.shuffle.rdma.transport} unset, so each executor's own JVM system property decides (given
 * here by a {@code java} wrapper that the executors are launched through, as a node's environment
 * would). Needs the Soft-RoCE guest (integration/softroce/mixed-transport-test.sh runs it there);
 * Maven's failsafe does not run it.
 *
 * <p>Job "everywhere": map outputs on all three executors, so every reduce task sees an owner whose
 * transport it can't speak and reads the stock way (counted as {@code fallbacks.otherTransport},
 * logged once per executor). Job "verbsOnly": map outputs on the two verbs executors only, so their
 * reduce tasks READ over verbs and the tcp executor's reduce tasks read the stock way. Both equal
 * the stock shuffle's results, with no fetch failure and no stage run again.
 */
@Timeout(1800)
class MixedTransportIT {
  private static final int MAPS = 6;
  private static final int REDUCES = 9;
  private static final long PER_MAP = 20_000;

  /**
   * Per executor id its transport; verbs executors bind to a Soft-RoCE device's address each (no
   * system property is read here: executors initialise this class too, for the job's lambdas).
   */
  private static final Map<String, String> TRANSPORTS =
      new TreeMap<>(Map.of("0", "verbs", "1", "verbs", "2", "tcp"));

  /** The address executor {@code id}'s transport binds to (empty: Spark's host). */
  private static String transportHost(String id) {
    return switch (id) {
      case "0" -> ItCluster.property("rdma.test.serverHost");
      case "1" -> ItCluster.property("rdma.test.clientHost");
      default -> "";
    };
  }

  @Test
  void executorsOfDifferentTransportsReadEachOthersOutputs() throws Exception {
    Path refWork = ItCluster.workDir("mixed-reference");
    List<String> expected;
    SparkSession ref = ItCluster.start(ItCluster.reference("mixed-reference", refWork));
    try {
      JavaSparkContext sc = ItCluster.jsc(ref);
      expected = job(sc.parallelize(IntStream.range(0, MAPS).boxed().toList(), MAPS));
    } finally {
      Differential.stop(ref);
    }

    Path work = ItCluster.workDir("mixed");
    SparkConf conf =
        ItCluster.localCluster("mixed-transports", work, TRANSPORTS.size(), 1)
            .set("spark.executor.memory", "512m")
            // the guest emulates its CPUs: C1 only and one GC thread keep the JVMs' start short
            .set("spark.executor.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
            .set("spark.executorEnv.JAVA_HOME", javaWrapper(work).toString())
            // read.local stays true: each verbs executor's marker names another address, so the
            // two READ each other's outputs, and read their own from the files
            .set("spark.shuffle.rdma.buffers.maxBytes", "32m")
            // map tasks wait for the executor they name
            .set("spark.locality.wait", "120s");
    SparkSession s = ItCluster.start(conf);
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      Map<String, String> hosts = hosts(sc);
      assertEquals(TRANSPORTS.keySet(), hosts.keySet(), "executor ids");
      ReduceTasks reduces = new ReduceTasks();
      sc.sc().addSparkListener(reduces);
      TaskOutcomes outcomes = TaskOutcomes.watch(sc);

      assertEquals(expected, job(placed(sc, hosts, List.of("0", "1", "2"))), "everywhere");
      sc.sc().listenerBus().waitUntilEmpty(30_000);
      Map<String, Integer> everywhere = reduces.take();
      assertEquals(expected, job(placed(sc, hosts, List.of("0", "1"))), "verbsOnly");
      outcomes.settle(sc);
      Map<String, Integer> verbsOnly = reduces.take();

      assertEquals(0, outcomes.fetchFailures.get(), outcomes.toString());
      assertEquals(0, outcomes.stageReattempts.get(), outcomes.toString());
      assertEquals(0, outcomes.otherFailures.get(), outcomes.toString());

      Map<String, String> markers = markers(sc);
      for (Map.Entry<String, String> e : TRANSPORTS.entrySet()) {
        TransportKind want = TransportKind.valueOf(e.getValue().toUpperCase(java.util.Locale.ROOT));
        assertEquals(
            want,
            OwnerMarker.parse(markers.get(e.getKey())).transport(),
            "executor " + e.getKey() + ": " + markers.get(e.getKey()));
      }
      Map<String, Map<String, Long>> probes = ItCluster.probe(sc);
      String report = "reduce tasks " + everywhere + " then " + verbsOnly + "; probes " + probes;
      long verbsReducesOfVerbsOnly =
          verbsOnly.getOrDefault("0", 0) + verbsOnly.getOrDefault("1", 0);
      assertTrue(
          verbsReducesOfVerbsOnly > 0, "no reduce task of verbsOnly ran on verbs: " + report);
      for (String id : TRANSPORTS.keySet()) {
        Map<String, Long> p = probes.get(id);
        assertEquals(0L, p.get("transportUnavailable"), id + ": " + report);
        assertEquals(0L, p.get("fallbacks.transportUnavailable"), id + ": " + report);
        assertEquals(0L, p.get("fallbacks.unpublishedMapOutput"), id + ": " + report);
        boolean verbs = !id.equals("2");
        // a reduce task that sees an owner it can't READ from falls back once, as a whole
        long fellBack =
            everywhere.getOrDefault(id, 0) + (verbs ? 0 : verbsOnly.getOrDefault(id, 0));
        assertEquals(fellBack, p.get("fallbacks.otherTransport"), id + ": " + report);
        assertEquals(fellBack, p.get("fallbacks"), id + ": " + report);
        long readByUs = verbs ? verbsOnly.getOrDefault(id, 0) : 0;
        assertEquals(readByUs, p.get("readers"), id + ": " + report);
        if (readByUs > 0) {
          assertTrue(p.get("readsCompleted") > 0, id + " READ nothing: " + report);
        } else {
          assertEquals(0L, p.get("readsCompleted"), id + ": " + report);
        }
        assertEquals(fellBack > 0 ? 1 : 0, warnings(s, id), id + ": fallback warnings logged");
      }
      System.out.println("mixed transports: " + report);
    } finally {
      Differential.stop(s);
    }
  }

  /** The shuffle both jobs run: per key (n mod 101) the sum and the count, in key order. */
  private static List<String> job(JavaRDD<Integer> maps) {
    JavaPairRDD<Long, long[]> pairs =
        maps.flatMapToPair(
            i ->
                LongStream.range(i * PER_MAP, (i + 1) * PER_MAP)
                    .mapToObj(n -> new Tuple2<>(n % 101, new long[] {n, 1}))
                    .iterator());
    return pairs
        .reduceByKey((a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}, REDUCES)
        .collect()
        .stream()
        .sorted((x, y) -> Long.compare(x._1(), y._1()))
        .map(t -> t._1() + "=" + t._2()[0] + "/" + t._2()[1])
        .toList();
  }

  /** MAPS map partitions, partition i on executor {@code on[i mod on.size()]}. */
  private static JavaRDD<Integer> placed(
      JavaSparkContext sc, Map<String, String> hosts, List<String> on) {
    List<Tuple2<Integer, Seq<String>>> parts = new ArrayList<>();
    for (int i = 0; i < MAPS; i++) {
      String id = on.get(i % on.size());
      parts.add(
          new Tuple2<>(
              i,
              CollectionConverters.asScala(List.of("executor_" + hosts.get(id) + "_" + id))
                  .toList()));
    }
    return JavaRDD.fromRDD(
        sc.sc()
            .makeRDD(
                CollectionConverters.asScala(parts).toList(),
                ClassTag$.MODULE$.apply(Integer.class)),
        ClassTag$.MODULE$.apply(Integer.class));
  }

  /**
   * A JAVA_HOME whose bin/java starts this JVM's java with the transport (and its host) of the
   * executor id it is given: the executor's own system properties, which its SparkConf keeps since
   * the application does not set these keys.
   */
  private static Path javaWrapper(Path work) throws IOException {
    Path home = work.resolve("java-home");
    Files.createDirectories(home.resolve("bin"));
    StringBuilder script = new StringBuilder("#!/bin/bash\nid=\nprev=\n");
    script.append("for a in \"$@\"; do [ \"$prev\" = --executor-id ] && id=$a; prev=$a; done\n");
    script.append("case \"$id\" in\n");
    for (Map.Entry<String, String> e : TRANSPORTS.entrySet()) {
      script.append("  ").append(e.getKey()).append(") set -- ");
      script.append("-Dspark.shuffle.rdma.transport=").append(e.getValue());
      String host = transportHost(e.getKey());
      if (!host.isEmpty()) {
        script.append(" -Dspark.shuffle.rdma.host=").append(host);
      }
      script.append(" \"$@\" ;;\n");
    }
    script.append("esac\n");
    script.append("exec '").append(Path.of(System.getProperty("java.home"), "bin", "java"));
    script.append("' \"$@\"\n");
    Path java = home.resolve("bin").resolve("java");
    Files.writeString(java, script.toString());
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    return home;
  }

  /** Executor id to the host Spark knows it by. */
  private static Map<String, String> hosts(JavaSparkContext sc) {
    return everyExecutor(sc, () -> SparkEnv.get().blockManager().blockManagerId().host());
  }

  /** Executor id to its owner marker (the node has started by now). */
  private static Map<String, String> markers(JavaSparkContext sc) {
    return everyExecutor(
        sc,
        () -> {
          OwnerMarker m = ((RdmaShuffleManager) SparkEnv.get().shuffleManager()).ownerIfStarted();
          return m == null ? "none" : m.toText();
        });
  }

  interface Question extends java.io.Serializable {
    String ask();
  }

  private static Map<String, String> everyExecutor(JavaSparkContext sc, Question q) {
    Map<String, String> out = new TreeMap<>();
    for (int attempt = 0; attempt < 20 && out.size() < TRANSPORTS.size(); attempt++) {
      int tasks = 8 * TRANSPORTS.size();
      List<Integer> seeds = IntStream.range(0, tasks).boxed().collect(Collectors.toList());
      sc.parallelize(seeds, tasks)
          .mapPartitions(
              (Iterator<Integer> it) -> {
                Thread.sleep(100);
                return List.of(SparkEnv.get().executorId() + " " + q.ask()).iterator();
              })
          .collect()
          .forEach(r -> out.put(r.substring(0, r.indexOf(' ')), r.substring(r.indexOf(' ') + 1)));
    }
    return out;
  }

  /** How many times executor {@code id} logged the other-transport fallback. */
  private static long warnings(SparkSession s, String id) throws IOException {
    for (Path log : ItCluster.executorLogs(s.sparkContext().applicationId())) {
      if (log.getParent().getFileName().toString().equals(id)) {
        try (var lines = Files.lines(log)) {
          return lines.filter(l -> l.contains("(other_transport)")).count();
        }
      }
    }
    throw new IllegalStateException("no log of executor " + id);
  }

  /** Reduce (result) tasks that succeeded, per executor, since the last {@link #take}. */
  static final class ReduceTasks extends SparkListener {
    private final Map<String, Integer> counts = new ConcurrentHashMap<>();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      if ("ResultTask".equals(end.taskType())
          && end.reason() instanceof org.apache.spark.Success$) {
        counts.merge(end.taskInfo().executorId(), 1, Integer::sum);
      }
    }

    synchronized Map<String, Integer> take() {
      Map<String, Integer> m = new TreeMap<>(counts);
      counts.clear();
      return m;
    }
  }
}
