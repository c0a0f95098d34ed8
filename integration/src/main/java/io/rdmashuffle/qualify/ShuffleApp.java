/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.cluster.apps.AppData;
import io.rdmashuffle.cluster.bench.NetworkPathApp;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.ShuffleReadMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * qualify's small Spark shuffle: seeded random records of 1 KiB (the same bytes every run), {@code
 * repartition} across the executors, an order-free digest (count and sum of the records' CRC32C)
 * per reduce partition. Prints one line the driver compares between the stock shuffle and ours:
 * {@code qualify-shuffle records=N checksum=HEX millis=MS remoteBytes=B}.
 *
 * <pre>spark-submit --class io.rdmashuffle.qualify.ShuffleApp JAR BYTES EXECUTORS [WAIT_SECONDS]
 * </pre>
 *
 * <p>WAIT_SECONDS (default 180): how long to wait for the executors to register; qualify passes its
 * own limit for the application, since a slow cluster (an emulated one: the Soft-RoCE guest) starts
 * executors in minutes.
 */
public final class ShuffleApp {
  private ShuffleApp() {}

  /** Remote bytes the reduce tasks fetched (Spark's task metrics, which our reader fills too). */
  static final class RemoteBytes extends SparkListener {
    long bytes;

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd e) {
      if (e.taskMetrics() != null) {
        ShuffleReadMetrics r = e.taskMetrics().shuffleReadMetrics();
        bytes += r.remoteBytesRead();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    long bytes = Long.parseLong(args[0]);
    int executors = Integer.parseInt(args[1]);
    long waitSeconds = args.length > 2 ? Long.parseLong(args[2]) : 180;
    int maps = 2 * executors;
    int record = 1024;
    long perMap = Math.max(1, bytes / maps / record);
    try (JavaSparkContext sc =
        new JavaSparkContext(new SparkConf().setAppName("rdma-shuffle qualify"))) {
      RemoteBytes remote = new RemoteBytes();
      sc.sc().addSparkListener(remote);
      AppData.awaitExecutors(sc, executors, waitSeconds);
      long t0 = System.nanoTime();
      List<long[]> parts =
          sc.parallelize(IntStream.range(0, maps).boxed().collect(Collectors.toList()), maps)
              .flatMap(seed -> new NetworkPathApp.RandomRecords(seed, perMap, record))
              .repartition(maps)
              .mapPartitions(ShuffleApp::digest)
              .collect();
      long millis = (System.nanoTime() - t0) / 1_000_000;
      sc.sc().listenerBus().waitUntilEmpty(60_000);
      long n = 0;
      long sum = 0;
      for (long[] p : parts) {
        n += p[0];
        sum += p[1];
      }
      synchronized (remote) {
        System.out.println(
            "qualify-shuffle records="
                + n
                + " checksum="
                + Long.toHexString(sum)
                + " millis="
                + millis
                + " remoteBytes="
                + remote.bytes);
      }
    }
  }

  private static Iterator<long[]> digest(Iterator<byte[]> records) {
    CRC32C crc = new CRC32C();
    long n = 0;
    long s = 0;
    while (records.hasNext()) {
      crc.reset();
      crc.update(records.next());
      s += crc.getValue();
      n++;
    }
    return List.of(new long[] {n, s}).iterator();
  }
}
