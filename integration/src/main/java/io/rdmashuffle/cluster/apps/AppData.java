package io.rdmashuffle.cluster.apps;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
    long deadline = System.currentTimeMillis() + 180_000;
    while (sc.sc().getExecutorIds().size() < n) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "only "
                + sc.sc().getExecutorIds().size()
                + " of "
                + n
                + " executors registered within 180 s");
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
        .flatMapToPair(
            seed -> {
              Random r = new Random(seed);
              List<Tuple2<Integer, Long>> out = new ArrayList<>();
              for (int i = 0; i < n / maps; i++) {
                out.add(new Tuple2<>(r.nextInt(keys), r.nextLong() % 1_000_000));
              }
              return out.iterator();
            });
  }
}
