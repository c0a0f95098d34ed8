/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * The shuffle-heavy jobs of the demo and the benchmark, and the Spark applications they run in:
 * {@code local-cluster} with two executor processes on this machine, the stock sort shuffle or
 * ours. Each job returns a fingerprint of its result (order-insensitive where the result is), so
 * runs on the two shuffles are compared for equality without collecting the data.
 */
public final class Workloads {
  public static final String MANAGER = "org.apache.spark.shuffle.rdma.RdmaShuffleManager";

  private Workloads() {}

  /** Which shuffle an application runs, and how blocks on this host are read. */
  public enum Shuffle {
    /** Spark's sort shuffle as a real cluster runs it (host-local blocks read from disk). */
    STOCK("stock"),
    /** Ours, defaults (blocks on this host read from their mapped files). */
    RDMA("rdma-shuffle"),
    /** Spark's sort shuffle with spark.shuffle.readHostLocalDisk=false (its network path). */
    STOCK_NETWORK("stock, readHostLocalDisk=false"),
    /** Ours with read.local=false (every block through the transport). */
    RDMA_TRANSPORT("rdma-shuffle, read.local=false");

    public final String label;

    Shuffle(String label) {
      this.label = label;
    }
  }

  /** An application of {@code executors} executors of {@code memoryMb} on this machine. */
  public static SparkConf conf(String name, Shuffle shuffle, int executors, int memoryMb) {
    String plugin = System.getProperty("rdma.pluginJar");
    if (plugin == null || !new File(plugin).isFile()) {
      throw new IllegalStateException(
          "-Drdma.pluginJar=<rdma-shuffle-spark jar> is not a file: " + plugin);
    }
    SparkConf c =
        new SparkConf()
            .setAppName(name)
            .setMaster("local-cluster[" + executors + ",1," + memoryMb + "]")
            .set("spark.executor.memory", memoryMb + "m")
            .set("spark.ui.enabled", "false")
            .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
            .set(
                "spark.executor.extraClassPath",
                plugin + File.pathSeparator + System.getProperty("rdma.appClasses", ""));
    if (System.getProperty("rdma.localDir") != null) {
      c.set("spark.local.dir", System.getProperty("rdma.localDir"));
    }
    switch (shuffle) {
      // local-cluster turns host-local disk reads off unless set (SparkContext: "this mode is
      // intended to be used for testing"); a real cluster has them on: say so explicitly
      case STOCK -> c.set("spark.shuffle.readHostLocalDisk", "true");
      case STOCK_NETWORK -> c.set("spark.shuffle.readHostLocalDisk", "false");
      case RDMA -> c.set("spark.shuffle.manager", MANAGER);
      case RDMA_TRANSPORT ->
          c.set("spark.shuffle.manager", MANAGER).set("spark.shuffle.rdma.read.local", "false");
      default -> throw new IllegalArgumentException(shuffle.name());
    }
    return c;
  }

  /** Waits until the application's executors registered (local-cluster starts them lazily). */
  public static void awaitExecutors(JavaSparkContext sc, int executors)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + 180_000;
    while (sc.sc().getExecutorIds().size() < executors) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("executors did not register within 180 s");
      }
      Thread.sleep(100);
    }
  }

  /**
   * {@code bytes} of records spread over {@code maps} map tasks: an int key out of {@code keys} and
   * an incompressible value of {@code valueBytes}, generated in the map tasks (no input).
   */
  public static JavaPairRDD<Integer, byte[]> records(
      JavaSparkContext sc, long bytes, int maps, int keys, int valueBytes) {
    long perMap = bytes / maps / (valueBytes + 4);
    List<Integer> seeds = IntStream.range(0, maps).boxed().collect(Collectors.toList());
    return sc.parallelize(seeds, maps)
        .flatMapToPair(
            seed ->
                new Iterator<Tuple2<Integer, byte[]>>() {
                  private final Random r = new Random(seed);
                  private long left = perMap;

                  @Override
                  public boolean hasNext() {
                    return left > 0;
                  }

                  @Override
                  public Tuple2<Integer, byte[]> next() {
                    left--;
                    byte[] v = new byte[valueBytes];
                    r.nextBytes(v);
                    return new Tuple2<>(r.nextInt(keys), v);
                  }
                });
  }

  /** groupByKey: per reduce partition, groups, values and a sum of their hashes. */
  public static List<String> groupBy(JavaPairRDD<Integer, byte[]> records, int reducers) {
    return records
        .groupByKey(reducers)
        .mapPartitionsWithIndex(
            (p, it) -> {
              long groups = 0;
              long values = 0;
              long hash = 0;
              while (it.hasNext()) {
                Tuple2<Integer, Iterable<byte[]>> g = it.next();
                groups++;
                for (byte[] v : g._2()) {
                  values++;
                  hash += g._1() * 31L + Arrays.hashCode(v);
                }
              }
              return List.of(p + ":" + groups + ":" + values + ":" + hash).iterator();
            },
            false)
        .collect();
  }

  /** sortByKey: per reduce partition, records, whether sorted, first and last key, hashes. */
  public static List<String> sortBy(JavaPairRDD<Integer, byte[]> records, int reducers) {
    return records
        .sortByKey(true, reducers)
        .mapPartitionsWithIndex(
            (p, it) -> {
              long n = 0;
              long hash = 0;
              boolean sorted = true;
              Integer first = null;
              int last = Integer.MIN_VALUE;
              while (it.hasNext()) {
                Tuple2<Integer, byte[]> t = it.next();
                if (first == null) {
                  first = t._1();
                }
                sorted &= t._1() >= last;
                last = t._1();
                n++;
                hash += t._1() * 31L + Arrays.hashCode(t._2());
              }
              return List.of(p + ":" + n + ":" + sorted + ":" + first + ":" + last + ":" + hash)
                  .iterator();
            },
            false)
        .collect();
  }

  /** A job of the benchmark or the demo. */
  public interface Job {
    List<String> run(JavaSparkContext sc);
  }

  public static List<String> copy(List<String> l) {
    return new ArrayList<>(l);
  }
}
