/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.apps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.ShuffleReadMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * A Spark application for the cluster harness's tests: waits until {@code executors} executors
 * registered, runs a few shuffles (groupByKey, reduceByKey, sortByKey, join) over data spread on
 * every executor, and writes to {@code OUT}: {@code results.txt} (each case's result in a canonical
 * order, to compare a run on the stock shuffle with one on ours), {@code executors.txt} (executor
 * id and host of every executor that registered or ran a task) and {@code tasks.tsv} (per task of a
 * reduce stage: executor, host, blocks fetched from other executors and from its own host, bytes
 * fetched remotely).
 *
 * <pre>spark-submit --class io.rdmashuffle.cluster.apps.CrossHostShuffleApp JAR OUT EXECUTORS</pre>
 */
public final class CrossHostShuffleApp {
  private CrossHostShuffleApp() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int executors = Integer.parseInt(args[1]);
    Files.createDirectories(out);
    Map<String, String> hosts = new ConcurrentHashMap<>();
    ConcurrentLinkedQueue<String> tasks = new ConcurrentLinkedQueue<>();
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf())) {
      sc.sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onExecutorAdded(SparkListenerExecutorAdded e) {
                  hosts.put(e.executorId(), e.executorInfo().executorHost());
                }

                @Override
                public void onTaskEnd(SparkListenerTaskEnd e) {
                  // executors that registered before this listener was added (on YARN the context
                  // waits for most of them) are known by their tasks
                  hosts.putIfAbsent(e.taskInfo().executorId(), e.taskInfo().host());
                  if (e.taskMetrics() == null) {
                    return;
                  }
                  ShuffleReadMetrics r = e.taskMetrics().shuffleReadMetrics();
                  if (r.totalBlocksFetched() > 0) {
                    tasks.add(
                        e.stageId()
                            + "\t"
                            + e.taskInfo().executorId()
                            + "\t"
                            + e.taskInfo().host()
                            + "\t"
                            + r.remoteBlocksFetched()
                            + "\t"
                            + r.localBlocksFetched()
                            + "\t"
                            + r.remoteBytesRead());
                  }
                }
              });
      AppData.awaitExecutors(sc, executors);
      List<String> results = new ArrayList<>();
      int parts = 2 * executors;
      add(
          results,
          "groupByKey",
          AppData.pairs(sc, 60_000, 2000, parts)
              .groupByKey(parts)
              .map(
                  t -> {
                    List<Long> v = new ArrayList<>();
                    t._2().forEach(v::add);
                    Collections.sort(v);
                    return t._1() + "=" + v;
                  })
              .collect(),
          true);
      add(
          results,
          "reduceByKey",
          AppData.pairs(sc, 100_000, 5000, parts)
              .reduceByKey(Long::sum, parts)
              .map(t -> t._1() + "=" + t._2())
              .collect(),
          true);
      add(
          results,
          "sortByKey",
          AppData.pairs(sc, 50_000, 100_000, parts)
              .sortByKey(true, parts)
              .keys()
              .map(k -> "" + k)
              .collect(),
          false);
      JavaPairRDD<Integer, Long> left = AppData.pairs(sc, 20_000, 3000, parts);
      JavaPairRDD<Integer, Long> right =
          AppData.pairs(sc, 10_000, 3000, parts).mapValues(v -> v * 7);
      add(
          results,
          "join",
          left.join(right, parts)
              .map(t -> t._1() + "=" + t._2()._1() + "," + t._2()._2())
              .collect(),
          true);
      sc.sc().listenerBus().waitUntilEmpty(60_000);
      Files.write(out.resolve("results.txt"), results);
      Files.write(
          out.resolve("executors.txt"),
          new TreeMap<>(hosts)
              .entrySet().stream()
                  .map(e -> e.getKey() + "\t" + e.getValue())
                  .collect(Collectors.toList()));
      Files.write(out.resolve("tasks.tsv"), new ArrayList<>(tasks));
      // let every executor's metrics sinks report once more after the last task
      Thread.sleep(2_500);
    }
  }

  private static void add(List<String> results, String name, List<String> rows, boolean sort)
      throws IOException {
    List<String> r = new ArrayList<>(rows);
    if (sort) {
      Collections.sort(r);
    }
    for (String row : r) {
      results.add(name + "\t" + row);
    }
  }
}
