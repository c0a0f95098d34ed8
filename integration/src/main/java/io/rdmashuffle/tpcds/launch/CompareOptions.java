/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import io.rdmashuffle.tpcds.Args;
import io.rdmashuffle.tpcds.QueryCatalog;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a comparison needs, as {@code Tpcds compare} options give it; see {@link #usage()}.
 */
public record CompareOptions(
    double scale,
    String data,
    Path out,
    String results,
    String querySets,
    String queries,
    int reps,
    int warmup,
    int batch,
    String master,
    Path sparkHome,
    Path sparkSubmit,
    Path appJar,
    String driverMemory,
    List<String> submitArgs,
    Map<String, String> conf,
    Side stock,
    Side ours,
    long queryTimeout,
    long stallTimeout,
    long rowsLimit,
    long chunkRows,
    String command) {

  public static String usage() {
    return """
        usage: bin/rdma-shuffle tpcds [options]
               on a cluster: spark-submit --class io.rdmashuffle.tpcds.Tpcds JAR compare [options]
        TPC-DS on the stock shuffle and on ours, alternating, one report. bin/rdma-shuffle tpcds
        runs on this machine (--master local-cluster[2,1,2048], --spark-home: the build's, made of
        Maven artifacts), with --data integration/target/tpcds-data and --out
        integration/results/tpcds-DATE.
          --scale SF            scale factor (default 1)
          --data PATH           dataset root, any Hadoop path (default tpcds-data); DATA/sfSF is reused
          --out DIR             local report folder (default tpcds-results/tpcds-DATE)
          --results PATH        where applications write records (default OUT; HDFS/S3 for cluster mode)
          --query-set SETS      tpcds (103 queries, default) and/or tpcds-v2.7.0, comma-separated
          --queries IDS         all (default) or q1,q14a,q14a-v2.7,...
          --reps N              timed rounds per side (default 3)
          --warmup N            untimed runs at the start of each application (default 3)
          --batch N             queries per application (default 0: all in one)
          --master URL          default local-cluster[2,1,2048]
          --spark-home DIR      Spark home (default SPARK_HOME); its bin/spark-submit is used if present
          --spark-submit PATH   a spark-submit script to use
          --app-jar PATH        the runner's jar (default: the jar this class came from)
          --driver-memory SIZE  default 2g
          --submit-args "ARGS"  extra spark-submit arguments, e.g. "--num-executors 16 --executor-memory 8g"
          --submit-arg ARG      one extra spark-submit argument, repeatable
          --conf K=V            Spark setting for both sides, repeatable
          --stock-class C       stock side's shuffle manager (default sort)
          --stock-conf K=V      setting for the stock side only, repeatable
          --ours-class C        ours (default org.apache.spark.shuffle.rdma.RdmaShuffleManager)
          --ours-jar GLOB       its jar (default shuffle-manager/target/rdma-shuffle-spark_2.13-*.jar)
          --ours-conf K=V       setting for ours only, repeatable
          --query-timeout S     cancel a query after S seconds (default 0: never)
          --stall-timeout S     kill an application that finished no query (data generation: no
                                table) for S seconds (default 3600)
          --rows-limit N        store results up to N rows for comparisons within tolerance (default 100000)
          --chunk-rows N        rows per generator task (default 500000)
        Exit code: 0 when every query returned equal results on both sides; 1 when some differ or gave
        no result (application died, timeout); 2 on bad options or when the data cannot be made.
        """;
  }

  static CompareOptions parse(String[] argv, int from) throws IOException {
    Args a = new Args(argv, from);
    double scale = a.getDouble("scale", 1);
    String data = localOrUri(a.get("data", "tpcds-data"));
    Path outDir =
        Paths.get(
                a.get(
                    "out",
                    "tpcds-results/tpcds-"
                        + LocalDateTime.now()
                            .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))))
            .toAbsolutePath();
    String results = a.get("results", outDir.toUri().toString());
    String sparkHomeArg = a.get("spark-home", System.getenv("SPARK_HOME"));
    String submit = a.get("spark-submit", null);
    String appJar = a.get("app-jar", null);
    Map<String, String> conf =
        localClusterDefaults(a.get("master", "local-cluster[2,1,2048]"), a.pairs("conf"));
    Side stock =
        Side.of(
            "stock", a.get("stock-class", "sort"), a.get("stock-jar", null), a.pairs("stock-conf"));
    Side ours =
        Side.of(
            "ours",
            a.get("ours-class", Side.RDMA_MANAGER),
            a.get("ours-jar", Side.RDMA_JAR_GLOB),
            a.pairs("ours-conf"));
    CompareOptions o =
        new CompareOptions(
            scale,
            data,
            outDir,
            results,
            a.get("query-set", QueryCatalog.TPCDS),
            a.get("queries", "all"),
            a.getInt("reps", 3),
            a.getInt("warmup", 3),
            a.getInt("batch", 0),
            a.get("master", "local-cluster[2,1,2048]"),
            sparkHomeArg == null ? null : Paths.get(sparkHomeArg).toAbsolutePath(),
            submit == null ? null : Paths.get(submit).toAbsolutePath(),
            appJar == null ? ownJar() : Paths.get(appJar).toAbsolutePath(),
            a.get("driver-memory", "2g"),
            submitArgs(a),
            conf,
            stock,
            ours,
            a.getLong("query-timeout", 0),
            a.getLong("stall-timeout", 3600),
            a.getLong("rows-limit", 100_000),
            a.getLong("chunk-rows", 500_000),
            String.join(" ", List.of(argv).subList(from, argv.length)));
    a.done();
    if (o.reps() < 1 || o.warmup() < 0 || o.batch() < 0) {
      throw new IllegalArgumentException(
          "reps="
              + o.reps()
              + ", warmup="
              + o.warmup()
              + ", batch="
              + o.batch()
              + ": need reps >= 1, warmup >= 0, batch >= 0");
    }
    return o;
  }

  private static final java.util.regex.Pattern LOCAL_CLUSTER =
      java.util.regex.Pattern.compile("local-cluster\\[\\s*\\d+\\s*,\\s*\\d+\\s*,\\s*(\\d+)\\s*]");

  /**
   * In local-cluster mode executors get three quarters of a worker's memory unless set: Spark's
   * default (1g) leaves most of the worker idle, and the SF1 data generation needs more.
   */
  static Map<String, String> localClusterDefaults(String master, Map<String, String> conf) {
    java.util.regex.Matcher m = LOCAL_CLUSTER.matcher(master);
    Map<String, String> out = new LinkedHashMap<>(conf);
    if (m.matches() && !out.containsKey("spark.executor.memory")) {
      out.put("spark.executor.memory", (Integer.parseInt(m.group(1)) * 3 / 4) + "m");
    }
    return out;
  }

  private static List<String> submitArgs(Args a) {
    List<String> out = new ArrayList<>();
    String joined = a.get("submit-args", "");
    for (String s : joined.trim().split("\\s+")) {
      if (!s.isEmpty()) {
        out.add(s);
      }
    }
    out.addAll(a.all("submit-arg"));
    return out;
  }

  /** A path without a scheme is a local path, made absolute; anything else stays as it is. */
  static String localOrUri(String p) {
    return p.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*") ? p : Paths.get(p).toAbsolutePath().toString();
  }

  static Path ownJar() {
    try {
      return Paths.get(
          CompareOptions.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
