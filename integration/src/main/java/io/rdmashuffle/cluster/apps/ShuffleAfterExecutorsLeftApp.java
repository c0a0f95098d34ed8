/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.apps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.ShuffleReadMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * A Spark application for dynamic allocation tests: runs a shuffle (reduceByKey) once, waits until
 * dynamic allocation removed every executor (idle), then reads the same shuffle again: Spark skips
 * the map stage (its outputs are still registered, served by the node's shuffle service), and new
 * executors run the reduce stage. Writes to {@code OUT}: {@code first.txt} and {@code second.txt}
 * (each run's result, sorted) and {@code tasks.tsv} (per task: run, stage, kind, executor, host,
 * blocks fetched remotely and locally). With {@code pause}, once the executors are gone it writes
 * {@code OUT/paused} and waits for {@code OUT/resume} before the second run (the test restarts
 * NodeManagers meanwhile).
 *
 * <pre>
 * spark-submit --class io.rdmashuffle.cluster.apps.ShuffleAfterExecutorsLeftApp JAR OUT [pause]
 * </pre>
 */
public final class ShuffleAfterExecutorsLeftApp {
  private ShuffleAfterExecutorsLeftApp() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    Files.createDirectories(out);
    ConcurrentLinkedQueue<String> tasks = new ConcurrentLinkedQueue<>();
    AtomicInteger run = new AtomicInteger(1);
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf())) {
      sc.sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd e) {
                  ShuffleReadMetrics r =
                      e.taskMetrics() == null ? null : e.taskMetrics().shuffleReadMetrics();
                  tasks.add(
                      run.get()
                          + "\t"
                          + e.stageId()
                          + "\t"
                          + e.taskType()
                          + "\t"
                          + e.taskInfo().executorId()
                          + "\t"
                          + e.taskInfo().host()
                          + "\t"
                          + (r == null ? 0 : r.remoteBlocksFetched())
                          + "\t"
                          + (r == null ? 0 : r.localBlocksFetched())
                          + "\t"
                          + e.reason());
                }
              });
      int maps = 6;
      JavaPairRDD<Integer, Long> sums =
          AppData.pairs(sc, 300_000, 20_000, maps).reduceByKey(Long::sum, 4);
      JavaRDD<String> rows = sums.map(t -> t._1() + "=" + t._2());
      List<String> first = sorted(rows.collect());
      sc.sc().listenerBus().waitUntilEmpty(60_000);

      long deadline = System.currentTimeMillis() + 180_000;
      while (!sc.sc().getExecutorIds().isEmpty()) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(
              "executors still registered after 180 s: " + sc.sc().getExecutorIds());
        }
        Thread.sleep(200);
      }
      if (args.length > 1 && args[1].equals("pause")) {
        Files.writeString(out.resolve("paused"), "");
        long until = System.currentTimeMillis() + 600_000;
        while (!Files.exists(out.resolve("resume"))) {
          if (System.currentTimeMillis() > until) {
            throw new IllegalStateException("not resumed within 600 s");
          }
          Thread.sleep(200);
        }
      }
      run.set(2);
      List<String> second = sorted(rows.collect());
      sc.sc().listenerBus().waitUntilEmpty(60_000);
      Files.write(out.resolve("first.txt"), first);
      Files.write(out.resolve("second.txt"), second);
      Files.write(out.resolve("tasks.tsv"), new ArrayList<>(tasks));
      // let the last executors' metrics sinks report once more
      Thread.sleep(2_500);
    }
  }

  private static List<String> sorted(List<String> rows) {
    List<String> r = new ArrayList<>(rows);
    Collections.sort(r);
    return r;
  }
}
