/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.apps;

import io.rdmashuffle.bench.scale.ScaleManifest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.HashPartitioner;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleManager;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.storage.BlockManagerId;
import scala.Product2;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The serving side of the scale test: a Spark application that leaves {@code MAPS} map outputs of
 * {@code PARTITIONS} partitions on its executors and then stays up without reading them. Each map
 * output is written through the shuffle manager's own writer ({@code ShuffleManager.getWriter},
 * then {@code stop(true)}: Spark's sort-shuffle writer, its index and checksum files,
 * rdma-shuffle's meta file and publication, registration when there is room), as a map task writes
 * it; only Spark's scheduling of one task per map output is left out: {@code TASKS} tasks write
 * {@code MAPS / TASKS} outputs each, with map ids 0 .. MAPS-1 (on this 2-core machine Spark runs
 * 15-20 map tasks a second, so 20,000 map tasks would take 20 minutes before a byte is read). Map
 * output {@code m} holds {@code BLOCKS} records of {@code RECORD_BYTES} random bytes seeded by
 * {@code m}, one in each of {@code BLOCKS} partitions it picks.
 *
 * <p>It writes what readers need to find every block ({@link ScaleManifest}: the application, its
 * Spark secret when {@code spark.authenticate} is on, each map output's owner marker as its map
 * status carries it, and its non-empty partitions as the map status says) to {@code
 * OUT/manifest.txt}, then {@code OUT/ready} ({@code writeSeconds}, {@code failedTasks}), and waits
 * for {@code OUT/resume} (at most an hour) before it ends.
 *
 * <pre>
 * spark-submit --class io.rdmashuffle.cluster.apps.ScaleServeApp JAR OUT MAPS PARTITIONS BLOCKS RECORD_BYTES TASKS
 * </pre>
 */
public final class ScaleServeApp {
  private ScaleServeApp() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int maps = Integer.parseInt(args[1]);
    int partitions = Integer.parseInt(args[2]);
    int blocks = Integer.parseInt(args[3]);
    int recordBytes = Integer.parseInt(args[4]);
    int tasks = Integer.parseInt(args[5]);
    Files.createDirectories(out);
    AtomicLong failedTasks = new AtomicLong();
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf())) {
      sc.sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd e) {
                  if (!e.reason().toString().equals("Success")) {
                    failedTasks.incrementAndGet();
                  }
                }
              });
      // a shuffle dependency registers the shuffle with the manager: its handle is what writers
      // need; Spark never runs its map stage
      JavaPairRDD<Integer, byte[]> none =
          sc.parallelize(List.of(0), 1)
              .mapToPair(i -> new Tuple2<Integer, byte[]>(i, new byte[0]))
              .partitionBy(new HashPartitioner(partitions));
      @SuppressWarnings("unchecked")
      ShuffleDependency<Integer, byte[], byte[]> dep =
          (ShuffleDependency<Integer, byte[], byte[]>) none.rdd().dependencies().head();
      ShuffleHandle handle = dep.shuffleHandle();
      long t0 = System.nanoTime();
      List<Integer> slices = IntStream.range(0, tasks).boxed().collect(Collectors.toList());
      List<String> lines =
          sc.parallelize(slices, tasks)
              .flatMap(
                  t ->
                      write(
                              handle,
                              t * (long) maps / tasks,
                              (t + 1) * (long) maps / tasks,
                              partitions,
                              blocks,
                              recordBytes)
                          .iterator())
              .collect();
      double writeSeconds = (System.nanoTime() - t0) / 1e9;
      sc.sc().listenerBus().waitUntilEmpty(60_000);
      ScaleManifest manifest = manifest(sc, dep.shuffleId(), partitions, lines);
      manifest.write(out.resolve("manifest.txt"));
      Files.writeString(
          out.resolve("ready"),
          "writeSeconds="
              + writeSeconds
              + "\nfailedTasks="
              + failedTasks.get()
              + "\nexecutors="
              + String.join(",", manifest.owners())
              + "\n",
          StandardCharsets.UTF_8);
      long until = System.currentTimeMillis() + 3_600_000;
      while (!Files.exists(out.resolve("resume"))) {
        if (System.currentTimeMillis() > until) {
          throw new IllegalStateException("not resumed within an hour");
        }
        Thread.sleep(200);
      }
      // let the executors' metrics sinks report once more
      Thread.sleep(2_500);
    }
  }

  /**
   * In a task: writes map outputs {@code from} .. {@code to - 1} through the shuffle manager's
   * writer and commits each; one manifest line per output ({@code map, executor@host, marker,
   * partitions} tab-separated), its partitions those its map status says are not empty.
   */
  static List<String> write(
      ShuffleHandle handle, long from, long to, int partitions, int blocks, int recordBytes)
      throws Exception {
    TaskContext ctx = TaskContext.get();
    ShuffleManager manager = SparkEnv.get().shuffleManager();
    List<String> lines = new ArrayList<>();
    for (long m = from; m < to; m++) {
      ShuffleWriter<Integer, byte[]> w =
          manager.getWriter(handle, m, ctx, ctx.taskMetrics().shuffleWriteMetrics());
      List<Product2<Integer, byte[]>> records =
          new ArrayList<>(records((int) m, partitions, blocks, recordBytes));
      w.write(CollectionConverters.asScala(records.iterator()));
      MapStatus s = w.stop(true).get();
      BlockManagerId where = s.location();
      StringBuilder ps = new StringBuilder();
      for (int p = 0; p < partitions; p++) {
        if (s.getSizeForBlock(p) > 0) {
          ps.append(ps.length() == 0 ? "" : ",").append(p);
        }
      }
      lines.add(
          m
              + "\t"
              + where.executorId()
              + "@"
              + where.host()
              + "\t"
              + (where.topologyInfo().isDefined() ? where.topologyInfo().get() : "")
              + "\t"
              + ps);
    }
    return lines;
  }

  /** The records of map {@code seed}: one to each of {@code blocks} distinct partitions. */
  static List<Tuple2<Integer, byte[]>> records(
      int seed, int partitions, int blocks, int recordBytes) {
    Random r = new Random(seed);
    Set<Integer> chosen = new HashSet<>();
    List<Tuple2<Integer, byte[]>> out = new ArrayList<>(blocks);
    while (chosen.size() < Math.min(blocks, partitions)) {
      int p = r.nextInt(partitions);
      if (chosen.add(p)) {
        byte[] v = new byte[recordBytes];
        r.nextBytes(v);
        out.add(new Tuple2<>(p, v)); // HashPartitioner: a non-negative Integer key is its own
      }
    }
    return out;
  }

  /** The manifest of the outputs the writer tasks described. */
  private static ScaleManifest manifest(
      JavaSparkContext sc, int shuffleId, int partitions, List<String> lines) {
    List<ScaleManifest.MapOutput> outputs = new ArrayList<>();
    for (String l : lines) {
      String[] f = l.split("\t", -1);
      String[] ps = f[3].isEmpty() ? new String[0] : f[3].split(",");
      int[] parts = new int[ps.length];
      for (int i = 0; i < ps.length; i++) {
        parts[i] = Integer.parseInt(ps[i]);
      }
      outputs.add(new ScaleManifest.MapOutput(f[0], f[1], f[2], parts));
    }
    String secret =
        sc.getConf().getBoolean("spark.authenticate", false)
            ? SparkEnv.get().securityManager().getSecretKey()
            : "";
    return new ScaleManifest(
        sc.sc().applicationId(), secret, Integer.toString(shuffleId), partitions, outputs);
  }
}
