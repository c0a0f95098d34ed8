package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.FetchFailed;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
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
   * An executor is killed (SIGKILL, no goodbye) while the reduce stage runs: reduce tasks that
   * READ its map outputs fail their fetch, Spark re-runs those maps elsewhere, the answer is the
   * stock shuffle's.
   */
  @Test
  void anExecutorKilledDuringTheReduceStage() throws Exception {
    Path work = ItCluster.workDir("kill");
    // blocks go through the transport: a dead executor's files would still be readable here
    SparkSession s = Differential.start(ItCluster.localCluster("executor-killed", work)
        .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .set("spark.shuffle.rdma.read.local", "false"));
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      Map<String, Map<String, Long>> before = ItCluster.probe(sc);
      AtomicInteger resultTasksDone = new AtomicInteger();
      AtomicInteger fetchFailures = new AtomicInteger();
      AtomicBoolean executorRemoved = new AtomicBoolean();
      AtomicBoolean killed = new AtomicBoolean();
      long victim = before.values().iterator().next().get("pid");
      sc.sc().addSparkListener(new SparkListener() {
        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
          if (end.reason() instanceof FetchFailed) {
            fetchFailures.incrementAndGet();
          }
          if ("ResultTask".equals(end.taskType()) && resultTasksDone.incrementAndGet() == 2
              && killed.compareAndSet(false, true)) {
            ProcessHandle.of(victim).ifPresent(ProcessHandle::destroyForcibly);
          }
        }

        @Override
        public void onExecutorRemoved(SparkListenerExecutorRemoved removed) {
          executorRemoved.set(true);
        }
      });
      JavaPairRDD<Integer, Long> sums =
          DifferentialCases.pairs(sc, 200_000, 5000, 6).reduceByKey(Long::sum, 16);
      // slow reduce tasks, so the kill lands in the middle of the stage
      CompletableFuture<List<String>> job = CompletableFuture.supplyAsync(() -> {
        List<String> l = new ArrayList<>(sums.mapPartitions((Iterator<scala.Tuple2<Integer, Long>> it) -> {
          Thread.sleep(400);
          List<String> out = new ArrayList<>();
          it.forEachRemaining(t -> out.add(t._1() + "=" + t._2()));
          return out.iterator();
        }).collect());
        l.sort(null);
        return l;
      });
      List<String> result = job.get(480, TimeUnit.SECONDS);
      sc.sc().listenerBus().waitUntilEmpty(30_000);
      assertTrue(killed.get(), "no executor was killed");
      assertTrue(executorRemoved.get(), "the killed executor was never removed");
      assertEquals(DifferentialCases.expectedSums(200_000, 5000, 6), result);
      System.out.println("executor kill: fetch failures " + fetchFailures.get());
    } finally {
      Differential.stop(s);
    }
  }

  /**
   * The transport can't start on the executors (its port is taken): every shuffle still runs,
   * the stock way, and each executor logs the cause once and counts the fallbacks.
   */
  @Test
  void aTransportRefusedAtStartFallsBack() throws Exception {
    Path work = ItCluster.workDir("refused");
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      SparkSession s = Differential.start(ItCluster.localCluster("transport-refused", work)
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
          long lines = Files.readAllLines(log).stream()
              .filter(l -> l.contains("uses Spark's stock sort shuffle (transport_unavailable)"))
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
