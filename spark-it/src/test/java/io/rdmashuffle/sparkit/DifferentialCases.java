/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * The jobs every differential test runs, on the stock shuffle and on ours, with the same data: each
 * returns its result in a canonical form (sorted, unless order is the result) so results of two
 * runs can be compared with equals. Only APIs that are the same from Spark 3.5 to 4.2.
 */
public final class DifferentialCases {
  private DifferentialCases() {}

  /** Name to job, in the order they run. */
  public static Map<String, Function<SparkSession, List<String>>> all() {
    Map<String, Function<SparkSession, List<String>>> m = new LinkedHashMap<>();
    m.put("groupByKey", s -> groupByKey(jsc(s)));
    m.put("reduceByKey", s -> reduceByKey(jsc(s)));
    m.put("sortByKey", s -> sortByKey(jsc(s)));
    m.put("join", s -> join(jsc(s)));
    m.put("repartition", s -> repartition(jsc(s)));
    m.put("coalesceWithShuffle", s -> coalesceWithShuffle(jsc(s)));
    m.put("skewedKey", s -> skewedKey(jsc(s)));
    m.put("emptyDataset", s -> emptyDataset(jsc(s)));
    m.put("singleRecord", s -> singleRecord(jsc(s)));
    m.put("zeroRecordMapsAndEmptyPartitions", s -> zeroRecordMaps(jsc(s)));
    m.put("dataFrameAggregation", DifferentialCases::dataFrameAggregation);
    m.put("dataFrameSkewJoin", DifferentialCases::dataFrameSkewJoin);
    m.put("dataFrameLocalShuffleRead", DifferentialCases::dataFrameLocalShuffleRead);
    m.put("oneMapThousandsOfPartitions", DifferentialCases::oneMapThousandsOfPartitions);
    return m;
  }

  /** Runs every case; name to canonical result. */
  public static Map<String, List<String>> runAll(SparkSession s) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Map.Entry<String, Function<SparkSession, List<String>>> c : all().entrySet()) {
      out.put(c.getKey(), c.getValue().apply(s));
    }
    return out;
  }

  static JavaSparkContext jsc(SparkSession s) {
    return JavaSparkContext.fromSparkContext(s.sparkContext());
  }

  private static List<String> sorted(List<String> l) {
    List<String> c = new ArrayList<>(l);
    Collections.sort(c);
    return c;
  }

  static JavaPairRDD<Integer, Long> pairs(JavaSparkContext sc, int n, int keys, int maps) {
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

  /** What {@code pairs(n, keys, maps).reduceByKey(sum)} gives, computed without Spark, sorted. */
  static List<String> expectedSums(int n, int keys, int maps) {
    java.util.TreeMap<Integer, Long> sums = new java.util.TreeMap<>();
    for (int seed = 0; seed < maps; seed++) {
      Random r = new Random(seed);
      for (int i = 0; i < n / maps; i++) {
        sums.merge(r.nextInt(keys), r.nextLong() % 1_000_000, Long::sum);
      }
    }
    return sorted(
        sums.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.toList()));
  }

  static List<String> groupByKey(JavaSparkContext sc) {
    return sorted(
        pairs(sc, 60_000, 2000, 4)
            .groupByKey(6)
            .map(
                t -> {
                  List<Long> v = new ArrayList<>();
                  t._2().forEach(v::add);
                  Collections.sort(v);
                  return t._1() + "=" + v;
                })
            .collect());
  }

  static List<String> reduceByKey(JavaSparkContext sc) {
    return sorted(
        pairs(sc, 100_000, 5000, 5)
            .reduceByKey(Long::sum, 7)
            .map(t -> t._1() + "=" + t._2())
            .collect());
  }

  // lambdas, not String::valueOf: serialized method references of one method with different
  // argument types can be confused when deserialized (JDK-8174865)
  static List<String> sortByKey(JavaSparkContext sc) {
    // order is the result: keys only (values of equal keys may come in any order)
    return pairs(sc, 50_000, 100_000, 4).sortByKey(true, 5).keys().map(v -> "" + v).collect();
  }

  static List<String> join(JavaSparkContext sc) {
    JavaPairRDD<Integer, Long> a = pairs(sc, 30_000, 3000, 3);
    JavaPairRDD<Integer, String> b = pairs(sc, 20_000, 3000, 2).mapValues(v -> "b" + v);
    return sorted(a.join(b, 5).map(t -> t._1() + ":" + t._2()._1() + ":" + t._2()._2()).collect());
  }

  static List<String> repartition(JavaSparkContext sc) {
    JavaRDD<Long> r = pairs(sc, 40_000, 1000, 3).values().repartition(7);
    List<String> out = sorted(r.map(v -> "" + v).collect());
    out.add("partitions=" + r.getNumPartitions());
    return out;
  }

  static List<String> coalesceWithShuffle(JavaSparkContext sc) {
    JavaRDD<Long> r = pairs(sc, 40_000, 1000, 6).values().coalesce(3, true);
    List<String> out = sorted(r.map(v -> "" + v).collect());
    out.add("partitions=" + r.getNumPartitions());
    return out;
  }

  /**
   * Most records under one key, with incompressible values: that key's block of each map output is
   * several MiB (larger than a READ segment and a registered piece where tests make them small).
   */
  static List<String> skewedKey(JavaSparkContext sc) {
    List<Integer> seeds = IntStream.range(0, 3).boxed().collect(Collectors.toList());
    JavaPairRDD<Integer, byte[]> skewed =
        sc.parallelize(seeds, 3)
            .flatMapToPair(
                seed -> {
                  Random r = new Random(seed);
                  List<Tuple2<Integer, byte[]>> out = new ArrayList<>();
                  for (int i = 0; i < 60_000; i++) {
                    byte[] v = new byte[48];
                    r.nextBytes(v);
                    out.add(new Tuple2<>(r.nextInt(10) < 7 ? 0 : r.nextInt(500), v));
                  }
                  return out.iterator();
                });
    return sorted(
        skewed
            .groupByKey(4)
            .map(
                t -> {
                  long n = 0;
                  long h = 0;
                  for (byte[] v : t._2()) {
                    n++;
                    h += Arrays.hashCode(v);
                  }
                  return t._1() + ":" + n + ":" + h;
                })
            .collect());
  }

  static List<String> emptyDataset(JavaSparkContext sc) {
    JavaPairRDD<Integer, Long> empty = pairs(sc, 0, 10, 3);
    List<String> out =
        new ArrayList<>(empty.reduceByKey(Long::sum, 4).map(t -> t._1() + "=" + t._2()).collect());
    out.add("groups=" + empty.groupByKey(3).count());
    return out;
  }

  static List<String> singleRecord(JavaSparkContext sc) {
    JavaPairRDD<String, Integer> one = sc.parallelizePairs(List.of(new Tuple2<>("only", 1)), 1);
    return sorted(one.groupByKey(4).map(t -> t._1() + "=" + t._2()).collect());
  }

  /** Most maps write nothing; most reduce partitions are empty. */
  static List<String> zeroRecordMaps(JavaSparkContext sc) {
    List<Tuple2<Integer, Long>> few =
        List.of(new Tuple2<>(3, 1L), new Tuple2<>(3, 2L), new Tuple2<>(40, 5L));
    return sorted(
        sc.parallelizePairs(few, 8)
            .reduceByKey(Long::sum, 50)
            .map(t -> t._1() + "=" + t._2())
            .collect());
  }

  static List<String> rows(Dataset<Row> d) {
    return sorted(d.collectAsList().stream().map(Row::toString).collect(Collectors.toList()));
  }

  static List<String> dataFrameAggregation(SparkSession s) {
    Dataset<Row> d = s.range(0, 200_000, 1, 4).withColumn("k", col("id").mod(1000));
    return rows(d.groupBy("k").agg(sum("id").as("s"), count(lit(1)).as("n")));
  }

  /** A sort-merge join whose skewed partition AQE splits by map ranges. */
  static List<String> dataFrameSkewJoin(SparkSession s) {
    String old = s.conf().get("spark.sql.autoBroadcastJoinThreshold");
    s.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    try {
      Dataset<Row> big =
          s.range(0, 120_000, 1, 4)
              .withColumn(
                  "k", when(col("id").mod(4).notEqual(0), lit(0)).otherwise(col("id").mod(700)));
      Dataset<Row> small =
          s.range(0, 700, 1, 2).withColumnRenamed("id", "k2").withColumn("tag", col("k2").mod(7));
      Dataset<Row> j = big.join(small, big.col("k").equalTo(small.col("k2")));
      return rows(j.groupBy("tag").agg(count(lit(1)).as("n"), sum("id").as("s")));
    } finally {
      s.conf().set("spark.sql.autoBroadcastJoinThreshold", old);
    }
  }

  /**
   * A join planned as sort-merge whose one side turns out tiny: AQE makes it a broadcast join and
   * reads the other side's shuffle per map (local shuffle reader: map ranges).
   */
  static List<String> dataFrameLocalShuffleRead(SparkSession s) {
    Dataset<Row> left = s.range(0, 100_000, 1, 4).withColumn("k", col("id").mod(500));
    Dataset<Row> right =
        s.range(0, 100_000, 1, 4)
            .filter(col("id").lt(20))
            .withColumn("k", col("id").mod(500))
            .withColumnRenamed("id", "rid");
    Dataset<Row> j = left.join(right, "k");
    return rows(j.groupBy("rid").agg(count(lit(1)).as("n")));
  }

  /** One map task writing 3000 partitions (highly compressed map status); AQE coalesces. */
  static List<String> oneMapThousandsOfPartitions(SparkSession s) {
    String old = s.conf().get("spark.sql.shuffle.partitions");
    s.conf().set("spark.sql.shuffle.partitions", "3000");
    try {
      Dataset<Row> d = s.range(0, 60_000, 1, 1).withColumn("k", col("id").mod(4500));
      return rows(d.groupBy("k").agg(count(lit(1)).as("n"), sum("id").as("s")));
    } finally {
      s.conf().set("spark.sql.shuffle.partitions", old);
    }
  }
}
