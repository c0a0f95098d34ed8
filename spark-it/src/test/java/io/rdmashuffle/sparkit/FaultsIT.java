/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.mapoutput.OwnerMarker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.FetchFailed;
import org.apache.spark.HashPartitioner;
import org.apache.spark.Success$;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Faults on purpose, in two executor processes: the job's result must stay right. */
@Timeout(600)
class FaultsIT {
  @BeforeAll
  static void stockResultsFirst() {
    Differential.reference(); // one application at a time: compute them before any of ours
  }

  /**
   * An executor is killed (SIGKILL, no goodbye) while the reduce stage runs, every block through
   * the transport: reduce tasks finished before the kill READ remote blocks through ours; the
   * reduce task the other executor starts at the kill READs the dead executor's map outputs after a
   * pause, and our reader's fetch failure (not only Spark's missing map statuses) makes Spark
   * re-run those maps; the answer is the stock shuffle's.
   */
  @Test
  void anExecutorKilledDuringTheReduceStage() throws Exception {
    Path work = ItCluster.workDir("kill");
    // blocks go through the transport: a dead executor's files would still be readable here;
    // our reader retries as Spark's fetcher does (spark.shuffle.io.*): keep the retries short
    SparkSession s =
        Differential.start(
            ItCluster.localCluster("executor-killed", work)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.shuffle.rdma.read.local", "false")
                .set("spark.shuffle.io.retryWait", "200ms"));
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      Map<String, Map<String, Long>> before = ItCluster.probe(sc);
      List<String> executors = new ArrayList<>(before.keySet());
      long victim = before.get(executors.get(0)).get("pid");
      String survivor = executors.get(1);
      AtomicInteger resultTasksDone = new AtomicInteger();
      AtomicLong remoteBlocksBeforeKill = new AtomicLong();
      List<String> ourFetchFailures = new CopyOnWriteArrayList<>();
      List<String> otherFetchFailures = new CopyOnWriteArrayList<>();
      AtomicBoolean executorRemoved = new AtomicBoolean();
      AtomicBoolean killed = new AtomicBoolean();
      sc.sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskStart(SparkListenerTaskStart start) {
                  // a reduce task of the survivor starts: it will READ the victim's outputs, after
                  // a pause
                  if (resultTasksDone.get() >= 2
                      && survivor.equals(start.taskInfo().executorId())
                      && killed.compareAndSet(false, true)) {
                    ProcessHandle.of(victim).ifPresent(ProcessHandle::destroyForcibly);
                  }
                }

                @Override
                public void onTaskEnd(SparkListenerTaskEnd end) {
                  if (end.reason() instanceof FetchFailed f) {
                    boolean ours =
                        f.bmAddress() != null
                            && f.bmAddress().topologyInfo().isDefined()
                            && OwnerMarker.isOurs(f.bmAddress().topologyInfo().get())
                            && f.message().contains("(map output ");
                    (ours ? ourFetchFailures : otherFetchFailures).add(f.message());
                  }
                  if ("ResultTask".equals(end.taskType()) && end.reason() instanceof Success$) {
                    resultTasksDone.incrementAndGet();
                    if (!killed.get()) {
                      remoteBlocksBeforeKill.addAndGet(
                          end.taskMetrics().shuffleReadMetrics().remoteBlocksFetched());
                    }
                  }
                }

                @Override
                public void onExecutorRemoved(SparkListenerExecutorRemoved removed) {
                  executorRemoved.set(true);
                }
              });
      // no aggregation on the reduce side: a reduce task READs as its records are consumed,
      // after the pause
      JavaPairRDD<Integer, Long> partitioned =
          DifferentialCases.pairs(sc, 200_000, 5000, 6).partitionBy(new HashPartitioner(16));
      CompletableFuture<List<String>> job =
          CompletableFuture.supplyAsync(
              () -> {
                List<String> l =
                    new ArrayList<>(
                        partitioned
                            .mapPartitions(
                                (Iterator<scala.Tuple2<Integer, Long>> it) -> {
                                  Thread.sleep(800);
                                  Map<Integer, Long> sums = new TreeMap<>();
                                  it.forEachRemaining(t -> sums.merge(t._1(), t._2(), Long::sum));
                                  return sums.entrySet().stream()
                                      .map(e -> e.getKey() + "=" + e.getValue())
                                      .iterator();
                                })
                            .collect());
                l.sort(null);
                return l;
              });
      List<String> result = job.get(480, TimeUnit.SECONDS);
      sc.sc().listenerBus().waitUntilEmpty(30_000);
      assertTrue(killed.get(), "no executor was killed");
      assertTrue(executorRemoved.get(), "the killed executor was never removed");
      assertEquals(DifferentialCases.expectedSums(200_000, 5000, 6), result);
      assertTrue(remoteBlocksBeforeKill.get() > 0, "no block READ before the kill");
      assertFalse(
          ourFetchFailures.isEmpty(),
          "no fetch failure of our reader; Spark's: " + otherFetchFailures);
      Map<String, Map<String, Long>> after = ItCluster.probe(sc);
      Map<String, Long> survived = after.get(survivor);
      assertNotNull(survived, after.toString());
      assertTrue(
          survived.get("blocksRemote") > 0 && survived.get("readers") > 0,
          "the survivor did not read through rdma-shuffle: " + survived);
      assertTrue(survived.get("fetchFailures.transport") >= 1, survived.toString());
      assertEquals(0, ItCluster.total(after, "fallbacks"), after.toString());
      System.out.println(
          "executor kill: remote blocks before the kill "
              + remoteBlocksBeforeKill
              + ", fetch failures of our reader "
              + ourFetchFailures.size()
              + ", of Spark's map output tracker "
              + otherFetchFailures.size());
    } finally {
      Differential.stop(s);
    }
  }

  /**
   * The transport can't start on the executors (its port is taken): every shuffle still runs, the
   * stock way, and each executor logs the cause once and counts the fallbacks.
   */
  @Test
  void aTransportRefusedAtStartFallsBack() throws Exception {
    Path work = ItCluster.workDir("refused");
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      SparkSession s =
          Differential.start(
              ItCluster.localCluster("transport-refused", work)
                  .set("spark.shuffle.rdma.host", "127.0.0.1")
                  .set("spark.shuffle.rdma.port", String.valueOf(taken.getLocalPort())));
      try {
        JavaSparkContext sc = ItCluster.jsc(s);
        Map<String, List<String>> ref = Differential.reference();
        for (String c : List.of("groupByKey", "join", "dataFrameSkewJoin")) {
          Differential.assertSame(c, ref.get(c), DifferentialCases.all().get(c).apply(s));
        }
        Map<String, Map<String, Long>> p = ItCluster.probe(sc);
        assertEquals(0, ItCluster.total(p, "mapOutputsPublished"), p.toString());
        for (Map<String, Long> e : p.values()) {
          assertEquals(1L, e.get("transportUnavailable"), p.toString());
          assertTrue(e.get("fallbacks.transportUnavailable") > 0, p.toString());
        }
        for (Path log : ItCluster.executorLogs(sc.sc().applicationId())) {
          long lines =
              Files.readAllLines(log).stream()
                  .filter(
                      l -> l.contains("uses Spark's stock sort shuffle (transport_unavailable)"))
                  .count();
          assertTrue(lines <= 1, log + " logged the fallback " + lines + " times");
        }
      } finally {
        Differential.stop(s);
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
