/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.spark;

import io.rdmashuffle.tpcds.DatasetLayout;
import io.rdmashuffle.tpcds.QueryCatalog.Query;
import io.rdmashuffle.tpcds.Storage;
import io.rdmashuffle.tpcds.report.AppRun;
import io.rdmashuffle.tpcds.report.Json;
import io.rdmashuffle.tpcds.report.QueryRun;
import io.rdmashuffle.tpcds.report.Report;
import io.rdmashuffle.tpcds.result.CanonicalRows;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;
import scala.collection.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One side of a comparison: a Spark application that runs a list of TPC-DS queries on one shuffle
 * manager and records, per run, its time, shuffle metrics and the digest of its result.
 *
 * <p>Runs the first {@code warmup} queries untimed, then every query once (timed); a query that
 * throws records its error as its result. After each query it rewrites {@code records.jsonl} in its
 * output folder (so a crash loses nothing already run) and prints a progress line the launcher
 * reads ({@value #PROGRESS}, then the record as JSON). Results up to {@code rowsLimit} rows are
 * stored in canonical form ({@code rows/QUERY-DIGEST.txt}) for comparisons within tolerance.
 */
public final class QueryRunner {
  /** Prefix of the progress lines on standard output. */
  public static final String PROGRESS = "TPCDS-PROGRESS ";

  /** The application's own description in its output folder. */
  public static final String APP = "app.json";

  /**
   * What one application runs.
   *
   * @param app label, e.g. {@code ours-r1-b1}
   * @param side {@code stock} or {@code ours}
   * @param round from 1
   * @param batch from 1
   * @param data dataset root ({@code DatasetLayout})
   * @param scale scale factor
   * @param queries queries in order
   * @param warmup untimed runs before the timed ones (the first queries of the list)
   * @param out output folder, any Hadoop-compatible path
   * @param rowsLimit largest result stored in canonical form
   * @param timeoutSeconds cancel a query after this long (0: never)
   */
  public record Plan(
      String app,
      String side,
      int round,
      int batch,
      String data,
      double scale,
      List<Query> queries,
      int warmup,
      String out,
      long rowsLimit,
      long timeoutSeconds) {}

  private final SparkSession spark;
  private final Plan plan;
  private final Storage storage;
  private final ShuffleMetricsListener metrics = new ShuffleMetricsListener();
  private final List<QueryRun> records = new ArrayList<>();
  private final Set<String> storedRows = new HashSet<>();
  private final ScheduledExecutorService watchdog =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tpcds-query-timeout");
            t.setDaemon(true);
            return t;
          });
  private int sequence;

  public QueryRunner(SparkSession spark, Plan plan) {
    this.spark = spark;
    this.plan = plan;
    this.storage = new Storage(spark.sparkContext().hadoopConfiguration());
  }

  /** Registers the tables, runs the plan, writes records; returns how many runs failed. */
  public int run() throws IOException {
    SparkContext sc = spark.sparkContext();
    sc.addSparkListener(metrics);
    if (!storage.exists(DatasetLayout.marker(plan.data(), plan.scale()))) {
      throw new IllegalStateException(
          "no TPC-DS dataset at "
              + DatasetLayout.dir(plan.data(), plan.scale())
              + " (generate it first: Tpcds datagen)");
    }
    // the schema is given, not inferred: inference runs a Spark job per table (24 at start-up)
    for (Map.Entry<String, StructType> t : TpcdsSchema.tables().entrySet()) {
      spark
          .read()
          .schema(t.getValue())
          .parquet(DatasetLayout.table(plan.data(), plan.scale(), t.getKey()))
          .createOrReplaceTempView(t.getKey());
    }
    storage.write(Storage.child(plan.out(), APP), Json.pretty(appRun(sc)));
    int failed = 0;
    int total = plan.warmup() + plan.queries().size();
    int i = 0;
    for (int w = 0; w < plan.warmup(); w++) {
      failed += runAndRecord(plan.queries().get(w % plan.queries().size()), true, ++i, total);
    }
    for (Query q : plan.queries()) {
      failed += runAndRecord(q, false, ++i, total);
    }
    watchdog.shutdownNow();
    return failed;
  }

  private int runAndRecord(Query q, boolean warmup, int i, int total) throws IOException {
    QueryRun r = runOnce(q, warmup);
    records.add(r);
    storage.write(Storage.child(plan.out(), Report.RECORDS), Json.lines(records));
    System.out.println(PROGRESS + i + "/" + total + " " + Json.line(r));
    System.out.flush();
    return r.ok() ? 0 : 1;
  }

  private QueryRun runOnce(Query q, boolean warmup) throws IOException {
    SparkContext sc = spark.sparkContext();
    String group = "tpcds-" + plan.app() + "-" + q.id() + "-" + (++sequence);
    String sql = q.sql();
    Instant started = Instant.now();
    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> timer =
        plan.timeoutSeconds() <= 0
            ? null
            : watchdog.schedule(
                () -> {
                  timedOut.set(true);
                  sc.cancelJobGroup(group);
                },
                plan.timeoutSeconds(),
                TimeUnit.SECONDS);
    sc.setJobGroup(group, q.id() + (warmup ? " (warm-up)" : ""), true);
    long t0 = System.nanoTime();
    List<Row> rows = null;
    Throwable failure = null;
    try {
      rows = spark.sql(sql).collectAsList();
    } catch (Exception | StackOverflowError | OutOfMemoryError e) {
      failure = e;
    } finally {
      if (timer != null) {
        timer.cancel(false);
      }
      sc.clearJobGroup();
    }
    long millis = (System.nanoTime() - t0) / 1_000_000;
    SparkErrors.drainListenerBus(sc, 10_000);
    ShuffleMetricsListener.Totals m = metrics.take(group);

    String digest;
    String ordered;
    String error = null;
    String message = null;
    long count = 0;
    if (failure == null) {
      List<String> lines = new ArrayList<>(rows.size());
      for (Row row : rows) {
        lines.add(CanonicalRows.row(fields(row)));
      }
      count = lines.size();
      digest = CanonicalRows.digest(lines);
      ordered = CanonicalRows.orderedDigest(lines);
      storeRows(q.id(), digest, lines);
    } else {
      error =
          timedOut.get()
              ? QueryRun.TIMEOUT + " after " + plan.timeoutSeconds() + " s"
              : canonicalError(failure);
      message = firstLine(failure);
      digest = CanonicalRows.errorDigest(error);
      ordered = digest;
    }
    return new QueryRun(
        plan.side(),
        plan.round(),
        plan.app(),
        q.id(),
        warmup,
        failure == null ? QueryRun.OK : QueryRun.ERROR,
        millis,
        count,
        digest,
        ordered,
        error,
        message,
        m.writeBytes,
        m.writeRecords,
        m.readBytes,
        m.remoteBytes,
        m.localBytes,
        m.fetchWaitMillis,
        m.writeNanos / 1_000_000,
        m.tasks,
        m.failedTasks,
        started.toString());
  }

  private void storeRows(String query, String digest, List<String> lines) throws IOException {
    if (lines.size() > plan.rowsLimit() || !storedRows.add(digest)) {
      return;
    }
    StringBuilder b = new StringBuilder();
    for (String line : CanonicalRows.sorted(lines)) {
      b.append(line).append('\n');
    }
    String dir = Storage.child(plan.out(), Report.ROWS);
    storage.write(Storage.child(dir, Report.rowsFileName(query, digest)), b.toString());
  }

  /** A row's values as plain Java objects (nested rows and Scala collections converted). */
  static Object[] fields(Row row) {
    Object[] out = new Object[row.length()];
    for (int i = 0; i < out.length; i++) {
      out[i] = plain(row.get(i));
    }
    return out;
  }

  private static Object plain(Object v) {
    if (v instanceof Row r) {
      return fields(r);
    } else if (v instanceof Seq<?> s) {
      List<Object> out = new ArrayList<>();
      for (Object o : CollectionConverters.asJava(s)) {
        out.add(plain(o));
      }
      return out;
    } else if (v instanceof scala.collection.Map<?, ?> m) {
      Map<String, Object> sorted = new TreeMap<>();
      for (Object e : CollectionConverters.asJava(m.toSeq())) {
        Tuple2<?, ?> t = (Tuple2<?, ?>) e;
        sorted.put(String.valueOf(t._1()), plain(t._2()));
      }
      return List.of(sorted.toString());
    }
    return v;
  }

  /**
   * What makes two failures the same: the deepest Spark error condition in the cause chain ({@code
   * DIVIDE_BY_ZERO}), else the root exception's class. Messages carry stage and task ids that
   * differ from run to run, so they are kept for the report but not compared.
   */
  static String canonicalError(Throwable t) {
    String condition = null;
    Throwable root = t;
    int depth = 0;
    for (Throwable c = t; c != null && depth < 32; c = c.getCause(), depth++) {
      String cond = SparkErrors.condition(c);
      if (cond != null) {
        condition = cond;
      }
      root = c;
    }
    return condition != null ? condition : root.getClass().getName();
  }

  private static String firstLine(Throwable t) {
    Throwable root = t;
    for (int d = 0; root.getCause() != null && d < 32; d++) {
      root = root.getCause();
    }
    String m = String.valueOf(root.getMessage());
    int nl = m.indexOf('\n');
    String line = root.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }

  private AppRun appRun(SparkContext sc) {
    Map<String, String> settings = new TreeMap<>();
    for (Tuple2<String, String> kv : sc.getConf().getAll()) {
      if (reportable(kv._1())) {
        settings.put(kv._1(), kv._2());
      }
    }
    return new AppRun(
        plan.app(),
        plan.side(),
        plan.round(),
        plan.batch(),
        sc.applicationId(),
        sc.version(),
        sc.master(),
        sc.getConf().get("spark.shuffle.manager", "sort"),
        settings,
        plan.queries().stream().map(Query::id).toList(),
        Instant.now().toString(),
        0,
        0);
  }

  /** Settings shown in the report: what shapes a shuffle; never secrets. */
  static boolean reportable(String key) {
    String k = key.toLowerCase(java.util.Locale.ROOT);
    if (k.contains("secret")
        || k.contains("password")
        || k.contains("token")
        || k.contains("credential")
        || k.contains("access.key")) {
      return false;
    }
    return k.startsWith("spark.shuffle")
        || k.startsWith("spark.sql.")
        || k.startsWith("spark.executor.")
        || k.startsWith("spark.reducer")
        || k.startsWith("spark.io.")
        || k.startsWith("spark.memory")
        || k.startsWith("spark.serializer")
        || k.startsWith("spark.default.parallelism")
        || k.startsWith("spark.dynamicallocation")
        || k.startsWith("spark.driver.memory")
        || k.startsWith("spark.driver.extraclasspath")
        || k.startsWith("spark.cores")
        || k.startsWith("spark.jars")
        || k.startsWith("spark.plugins");
  }
}
