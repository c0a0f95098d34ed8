/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.apps;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.spark.FetchFailed;
import org.apache.spark.SparkConf;
import org.apache.spark.Success$;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskKilled;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * A Spark application for the cluster harness's speculation test: one reduceByKey whose map task 0
 * and reduce task 0 straggle in their first attempt (they sleep until killed, at most {@link
 * #STRAGGLE_MS}), so that Spark's speculation launches a copy of each on another host. Writes to
 * {@code OUT}: {@code results.txt} (the sums, sorted), {@code expected.txt} (the same sums computed
 * in the driver from the same seeds, without Spark) and {@code outcomes.txt} ({@code name=count}
 * lines: speculative map and reduce attempts that succeeded, attempts killed, fetch failures, other
 * failures).
 *
 * <pre>spark-submit --class io.rdmashuffle.cluster.apps.SpeculationApp JAR OUT EXECUTORS</pre>
 */
public final class SpeculationApp {
  /** The longest a straggling first attempt sleeps when nobody kills it. */
  static final long STRAGGLE_MS = 120_000;

  private SpeculationApp() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int executors = Integer.parseInt(args[1]);
    Files.createDirectories(out);
    Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf())) {
      sc.sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd e) {
                  String kind = "ShuffleMapTask".equals(e.taskType()) ? "map" : "reduce";
                  String outcome;
                  if (e.reason() instanceof Success$) {
                    outcome = e.taskInfo().speculative() ? "speculativeSucceeded" : "succeeded";
                  } else if (e.reason() instanceof TaskKilled) {
                    outcome = "killed";
                  } else if (e.reason() instanceof FetchFailed) {
                    outcome = "fetchFailed";
                  } else {
                    outcome = "failed";
                  }
                  outcomes
                      .computeIfAbsent(kind + "." + outcome, k -> new AtomicInteger())
                      .incrementAndGet();
                }
              });
      AppData.awaitExecutors(sc, executors);
      int parts = 2 * executors;
      int records = 60_000;
      int keys = 3000;
      List<String> sums =
          AppData.pairs(sc, records, keys, parts)
              .mapPartitionsToPair(
                  it -> {
                    straggleIfFirstAttemptOfTask0();
                    return it;
                  },
                  true)
              .reduceByKey(Long::sum, parts)
              .mapPartitions(
                  it -> {
                    straggleIfFirstAttemptOfTask0();
                    List<String> rows = new ArrayList<>();
                    it.forEachRemaining(t -> rows.add(t._1() + "=" + t._2()));
                    return rows.iterator();
                  })
              .collect();
      sc.sc().listenerBus().waitUntilEmpty(60_000);
      Files.write(out.resolve("results.txt"), sums.stream().sorted().toList());
      Files.write(
          out.resolve("expected.txt"),
          AppData.sumsByKey(records, keys, parts).entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .sorted()
              .toList());
      Files.write(
          out.resolve("outcomes.txt"),
          new TreeMap<>(outcomes)
              .entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.toList()));
      // let every executor's metrics sinks report once more after the last task
      Thread.sleep(2_500);
    }
  }

  /** Task 0's first attempt sleeps until Spark kills it (its speculative copy won). */
  private static void straggleIfFirstAttemptOfTask0() throws InterruptedException {
    TaskContext task = TaskContext.get();
    if (task.partitionId() == 0 && task.attemptNumber() == 0) {
      Thread.sleep(STRAGGLE_MS);
    }
  }
}
