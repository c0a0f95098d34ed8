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
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.FetchFailed;
import org.apache.spark.Success$;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark SQL at the width of a real job, for the cluster harness: {@code
 * spark.sql.shuffle.partitions} in the thousands, a fact table of {@code MAPS} partitions (as many
 * map tasks per shuffle) with one hot key, and two joins meant for AQE's wide reads: a skewed
 * partition split into ranges of map outputs, and a join small only at run time, broadcast with the
 * local shuffle reader. Whether AQE did either is in {@code plans.txt}: on Spark 4.1 (2026-12-05)
 * it coalesced the partitions but did neither.
 *
 * <ul>
 *   <li>{@code skew join}: fact joins a dimension of 200,000 keys (sort-merge: nothing is
 *       broadcast), 30 % of the fact's rows carry key 0, then an aggregate on {@code k % 1000}
 *   <li>{@code local read}: fact joins a filtered dimension that is small only at run time (AQE's
 *       broadcast threshold, not the planner's), then an aggregate on the dimension's column
 * </ul>
 *
 * <p>Writes to {@code OUT}: {@code results.txt} (each query's rows, sorted: compare a stock run
 * with ours), {@code plans.txt} (each query's final adaptive plan), {@code stages.tsv} (stage id,
 * attempt, tasks, shuffle bytes written, failure reason if any, then milliseconds: the stage's wall
 * time, its tasks' run time, CPU time and fetch wait) and {@code tasks.txt} (tasks ended, tasks
 * failed, fetch failures).
 *
 * <pre>spark-submit --class io.rdmashuffle.cluster.apps.WideSqlApp JAR OUT EXECUTORS MAPS ROWS
 * </pre>
 */
public final class WideSqlApp {
  private WideSqlApp() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int executors = Integer.parseInt(args[1]);
    int maps = Integer.parseInt(args[2]);
    long rows = Long.parseLong(args[3]);
    Files.createDirectories(out);
    AtomicLong ended = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong fetchFailures = new AtomicLong();
    Map<String, String> stages = new ConcurrentHashMap<>();
    SparkSession spark = SparkSession.builder().getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      sc.sc()
          .addSparkListener(
              new SparkListener() {
                @Override
                public void onTaskEnd(SparkListenerTaskEnd e) {
                  ended.incrementAndGet();
                  if (e.reason() != Success$.MODULE$) {
                    failed.incrementAndGet();
                  }
                  if (e.reason() instanceof FetchFailed) {
                    fetchFailures.incrementAndGet();
                  }
                }

                @Override
                public void onStageCompleted(SparkListenerStageCompleted e) {
                  StageInfo s = e.stageInfo();
                  TaskMetrics m = s.taskMetrics();
                  long written = m == null ? 0 : m.shuffleWriteMetrics().bytesWritten();
                  long millis =
                      s.submissionTime().isDefined() && s.completionTime().isDefined()
                          ? (Long) s.completionTime().get() - (Long) s.submissionTime().get()
                          : -1;
                  stages.put(
                      String.format("%06d.%03d", s.stageId(), s.attemptNumber()),
                      s.stageId()
                          + "\t"
                          + s.attemptNumber()
                          + "\t"
                          + s.numTasks()
                          + "\t"
                          + written
                          + "\t"
                          + (s.failureReason().isDefined() ? s.failureReason().get() : "-")
                          + "\t"
                          + millis
                          + "\t"
                          + (m == null ? 0 : m.executorRunTime())
                          + "\t"
                          + (m == null ? 0 : m.executorCpuTime() / 1_000_000)
                          + "\t"
                          + (m == null ? 0 : m.shuffleReadMetrics().fetchWaitTime()));
                }
              });
      AppData.awaitExecutors(sc, executors);

      // the fact: MAPS map tasks; key 0 on 30 % of the rows, the rest spread over 200,000 keys;
      // values hashed from the id, below 2^30 so that sums of 2M rows stay far from a long overflow
      // (little to compress, so the hot partition is big in bytes too)
      spark
          .range(0, rows, 1, maps)
          .selectExpr(
              "CASE WHEN id % 10 < 3 THEN 0L ELSE (id * 7919) % 200000 END AS k",
              "pmod(xxhash64(id), 1000000007) AS v")
          .createOrReplaceTempView("fact");
      spark
          .range(0, 200_000, 1, 50)
          .selectExpr("id AS k", "id % 97 AS cat")
          .createOrReplaceTempView("dim");
      spark
          .range(0, 200_000, 1, 50)
          .where("id % 1000 = 7")
          .selectExpr("id AS k", "id % 13 AS c")
          .createOrReplaceTempView("few");

      List<String> results = new ArrayList<>();
      List<String> plans = new ArrayList<>();
      // nothing broadcast: a sort-merge join whose partition of key 0 AQE splits
      spark.conf().set("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1");
      run(
          spark,
          "skew join",
          "SELECT f.k % 1000 AS g, count(*) AS n, sum(f.v) AS s, sum(d.cat) AS c"
              + " FROM fact f JOIN dim d ON f.k = d.k GROUP BY f.k % 1000",
          results,
          plans);
      // small at run time only: AQE broadcasts it and reads the fact's map outputs locally
      spark.conf().set("spark.sql.adaptive.autoBroadcastJoinThreshold", "10m");
      run(
          spark,
          "local read",
          "SELECT w.c, count(*) AS n, sum(f.v) AS s FROM fact f JOIN few w ON f.k = w.k"
              + " GROUP BY w.c",
          results,
          plans);

      sc.sc().listenerBus().waitUntilEmpty(60_000);
      Files.write(out.resolve("results.txt"), results);
      Files.write(out.resolve("plans.txt"), plans);
      Files.write(out.resolve("stages.tsv"), new ArrayList<>(new TreeMap<>(stages).values()));
      Files.write(
          out.resolve("tasks.txt"),
          List.of(
              "ended\t" + ended.get(),
              "failed\t" + failed.get(),
              "fetchFailures\t" + fetchFailures.get()));
      // let every executor's metrics sinks report once more after the last task
      Thread.sleep(2_500);
    } finally {
      spark.stop();
    }
  }

  private static void run(
      SparkSession spark, String name, String sql, List<String> results, List<String> plans) {
    Dataset<Row> q = spark.sql(sql);
    List<String> rows = new ArrayList<>();
    for (Row r : q.collectAsList()) {
      rows.add(name + "\t" + r.mkString("\t"));
    }
    rows.sort(null);
    results.addAll(rows);
    plans.add("== " + name + " ==");
    plans.add(q.queryExecution().executedPlan().toString());
  }
}
