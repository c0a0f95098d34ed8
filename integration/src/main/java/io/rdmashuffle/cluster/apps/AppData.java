/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/** What the harness's Spark applications share: waiting for executors, seeded key/value data. */
public final class AppData {
  private AppData() {}

  /** Waits until {@code n} executors registered, at most 180 s. */
  public static void awaitExecutors(JavaSparkContext sc, int n) throws InterruptedException {
    awaitExecutors(sc, n, 180);
  }

  /** Waits until {@code n} executors registered, at most {@code seconds}. */
  public static void awaitExecutors(JavaSparkContext sc, int n, long seconds)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + seconds * 1000;
    while (sc.sc().getExecutorIds().size() < n) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "only "
                + sc.sc().getExecutorIds().size()
                + " of "
                + n
                + " executors registered within "
                + seconds
                + " s");
      }
      Thread.sleep(200);
    }
  }

  /**
   * {@code n} pairs (key below {@code keys}) from {@code maps} seeded map tasks: the same every
   * run.
   */
  public static JavaPairRDD<Integer, Long> pairs(JavaSparkContext sc, int n, int keys, int maps) {
    List<Integer> seeds = IntStream.range(0, maps).boxed().collect(Collectors.toList());
    return sc.parallelize(seeds, maps)
        .flatMapToPair(seed -> records(seed, n / maps, keys).iterator());
  }

  /** The sum of each key's values over the pairs {@link #pairs} makes, computed without Spark. */
  public static Map<Integer, Long> sumsByKey(int n, int keys, int maps) {
    Map<Integer, Long> sums = new TreeMap<>();
    for (int seed = 0; seed < maps; seed++) {
      for (Tuple2<Integer, Long> t : records(seed, n / maps, keys)) {
        sums.merge(t._1(), t._2(), Long::sum);
      }
    }
    return sums;
  }

  /** The pairs of the map task seeded {@code seed}. */
  private static List<Tuple2<Integer, Long>> records(int seed, int count, int keys) {
    Random r = new Random(seed);
    List<Tuple2<Integer, Long>> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(new Tuple2<>(r.nextInt(keys), r.nextLong() % 1_000_000));
    }
    return out;
  }
}
