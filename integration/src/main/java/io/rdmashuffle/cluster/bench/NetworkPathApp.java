/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.cluster.apps.AppData;
import java.io.IOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The network-path benchmark's Spark application: one shuffle. Map tasks generate random records,
 * or with COMPRESSIBLE=true records of words drawn from a small vocabulary (seeded per map task, so
 * every run shuffles the same bytes), {@code repartition} moves them to the reduce tasks, which
 * count them and sum their CRC32C values (an order-free checksum that the runner compares between
 * the stock shuffle and ours). Waits for its executors, then meets the runner at the job's
 * boundaries ({@link Markers}) so the runner can sample the executors' threads, and writes {@code
 * result.properties} to {@code OUT}.
 *
 * <pre>spark-submit --class io.rdmashuffle.cluster.bench.NetworkPathApp JAR OUT EXECUTORS
 *     BYTES RECORD_BYTES MAP_TASKS REDUCE_TASKS [COMPRESSIBLE [WARM_UP_BYTES]]</pre>
 */
public final class NetworkPathApp {
  static final String RESULT = "result.properties";

  /**
   * Words of a compressible record: 8-byte words drawn from this many, so lz4 finds matches (about
   * a third of the bytes after compression, measured by the runs' remote bytes).
   */
  static final int VOCABULARY = 64;

  private static final long ACK_SECONDS = 120;

  private NetworkPathApp() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int executors = Integer.parseInt(args[1]);
    long bytes = Long.parseLong(args[2]);
    int recordBytes = Integer.parseInt(args[3]);
    int maps = Integer.parseInt(args[4]);
    int reduces = Integer.parseInt(args[5]);
    boolean compressible = args.length > 6 && Boolean.parseBoolean(args[6]);
    long warmUpBytes = args.length > 7 ? Long.parseLong(args[7]) : 0;
    Files.createDirectories(out);
    Markers markers = new Markers(out);
    ReduceStageListener listener = new ReduceStageListener(markers, warmUpBytes == 0);
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf())) {
      sc.sc().addSparkListener(listener);
      AppData.awaitExecutors(sc, executors);
      if (warmUpBytes > 0) {
        // other seeds than the measured job's, so no block of it is anything but new
        shuffle(sc, maps, maps, warmUpBytes, recordBytes, reduces, compressible);
        sc.sc().listenerBus().waitUntilEmpty(60_000);
        listener.measure();
      }
      markers.put(Markers.READY, sc.sc().applicationId());
      markers.awaitAck(Markers.READY, ACK_SECONDS);

      long t0 = System.nanoTime();
      List<long[]> parts = shuffle(sc, 0, maps, bytes, recordBytes, reduces, compressible);
      long jobMillis = (System.nanoTime() - t0) / 1_000_000;
      sc.sc().listenerBus().waitUntilEmpty(60_000);
      markers.put(Markers.DONE, sc.sc().applicationId());
      markers.awaitAck(Markers.DONE, ACK_SECONDS);

      long[] sum = new long[3];
      for (long[] p : parts) {
        for (int i = 0; i < 3; i++) {
          sum[i] += p[i];
        }
      }
      write(out.resolve(RESULT), sc.sc().applicationId(), jobMillis, sum, listener);
    }
  }

  /**
   * One shuffle job: {@code maps} map tasks seeded {@code firstSeed}, {@code firstSeed + 1}, ...
   * generate about {@code bytes} in whole records of {@code recordBytes} ({@link
   * RandomRecords#perTask}), {@code repartition(reduces)}; per reduce partition {records, bytes,
   * sum of the records' CRC32C}.
   */
  private static List<long[]> shuffle(
      JavaSparkContext sc,
      int firstSeed,
      int maps,
      long bytes,
      int recordBytes,
      int reduces,
      boolean compressible) {
    long recordsPerMap = RandomRecords.perTask(bytes, maps, recordBytes);
    return sc.parallelize(
            IntStream.range(firstSeed, firstSeed + maps).boxed().collect(Collectors.toList()), maps)
        .flatMap(
            seed ->
                compressible
                    ? new RandomRecords(seed, recordsPerMap, recordBytes, VOCABULARY)
                    : new RandomRecords(seed, recordsPerMap, recordBytes))
        .repartition(reduces)
        .mapPartitions(NetworkPathApp::digest)
        .collect();
  }

  /** {records, bytes, sum of the records' CRC32C} of one reduce partition. */
  private static Iterator<long[]> digest(Iterator<byte[]> records) {
    CRC32C crc = new CRC32C();
    long n = 0;
    long b = 0;
    long s = 0;
    while (records.hasNext()) {
      byte[] r = records.next();
      crc.reset();
      crc.update(r);
      s += crc.getValue();
      b += r.length;
      n++;
    }
    return List.of(new long[] {n, b, s}).iterator();
  }

  private static void write(
      Path file, String appId, long jobMillis, long[] sum, ReduceStageListener l)
      throws IOException {
    Properties p = new Properties();
    synchronized (l) {
      p.setProperty("appId", appId);
      p.setProperty("records", Long.toString(sum[0]));
      p.setProperty("bytes", Long.toString(sum[1]));
      p.setProperty("checksum", Long.toHexString(sum[2]));
      p.setProperty("jobMillis", Long.toString(jobMillis));
      p.setProperty("mapStageMillis", Long.toString(l.mapStageMillis));
      p.setProperty("reduceStageMillis", Long.toString(l.stageMillis()));
      p.setProperty("reduceStageSubmitted", Long.toString(l.stageSubmittedMillis));
      p.setProperty("reduceTasks", Long.toString(l.tasks));
      p.setProperty("reduceFirstLaunch", Long.toString(l.firstLaunchMillis()));
      p.setProperty("reduceLastLaunch", Long.toString(l.lastLaunchMillis()));
      p.setProperty("failedReduceTasks", Long.toString(l.failedTasks));
      p.setProperty("reduceRunMillis", Long.toString(l.runMillis));
      p.setProperty("fetchWaitMillis", Long.toString(l.fetchWaitMillis));
      p.setProperty("remoteBytes", Long.toString(l.remoteBytes));
      p.setProperty("localBytes", Long.toString(l.localBytes));
      p.setProperty("remoteBlocks", Long.toString(l.remoteBlocks));
      p.setProperty("executors", new TreeMap<>(l.executorHosts).toString());
    }
    try (Writer w = Files.newBufferedWriter(file)) {
      p.store(w, "NetworkPathApp");
    }
  }

  /**
   * {@code count} records of {@code size} bytes from a generator seeded with {@code seed}: random
   * bytes, or 8-byte words drawn from a vocabulary of random words (compressible).
   */
  public static final class RandomRecords implements Iterator<byte[]> {
    private final SplittableRandom random;
    private final int size;
    private final long[] words;
    private long left;

    /**
     * The records each of {@code tasks} map tasks generates to shuffle about {@code bytes} in
     * records of {@code size} bytes (whole records: the rest is dropped). The runner's options and
     * the application both count by it; it lives here because the application's class path does not
     * hold the runner's classes.
     */
    public static long perTask(long bytes, int tasks, int size) {
      return bytes / tasks / size;
    }

    public RandomRecords(long seed, long count, int size) {
      this(seed, count, size, 0);
    }

    /** With {@code vocabulary} > 0, each 8-byte word is one of that many random words. */
    public RandomRecords(long seed, long count, int size, int vocabulary) {
      this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 1);
      this.left = count;
      this.size = size;
      this.words = random.longs(vocabulary).toArray();
    }

    private long word() {
      return words.length == 0 ? random.nextLong() : words[random.nextInt(words.length)];
    }

    @Override
    public boolean hasNext() {
      return left > 0;
    }

    @Override
    public byte[] next() {
      if (left <= 0) {
        throw new NoSuchElementException();
      }
      left--;
      byte[] r = new byte[size];
      ByteBuffer b = ByteBuffer.wrap(r);
      while (b.remaining() >= Long.BYTES) {
        b.putLong(word());
      }
      while (b.hasRemaining()) {
        b.put((byte) random.nextInt());
      }
      return r;
    }
  }
}
