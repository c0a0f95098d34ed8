/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds;

import io.rdmashuffle.tpcds.launch.CompareLauncher;
import io.rdmashuffle.tpcds.launch.CompareOptions;
import io.rdmashuffle.tpcds.report.Report;
import io.rdmashuffle.tpcds.spark.DataGenerator;
import io.rdmashuffle.tpcds.spark.QueryRunner;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.spark.sql.SparkSession;

/**
 * The TPC-DS comparison runner's entry point, for {@code spark-submit --class} and for {@code
 * integration/bin/tpcds}:
 *
 * <pre>
 * compare  [options]   the whole comparison: data, both sides alternating, report (a launcher:
 *                      it starts one Spark application per side and round)
 * datagen  --data PATH --scale SF [--chunk-rows N]      a Spark application: generate the dataset
 * run      --app L --side S --data PATH --scale SF --queries IDS --out PATH [...]
 *                      a Spark application: one side's queries, records to PATH
 * report   --in DIR [--out DIR]   render the report again from a results folder
 * </pre>
 */
public final class Tpcds {
  private Tpcds() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    if (args.length == 0) {
      usage();
      System.exit(2);
    }
    int code;
    switch (args[0]) {
      case "help", "--help", "-h" -> {
        System.out.print(CompareOptions.usage());
        code = 0;
      }
      case "compare" -> code = CompareLauncher.main(args, 1);
      case "datagen" -> code = datagen(new Args(args, 1));
      case "run" -> code = run(new Args(args, 1));
      case "report" -> code = report(new Args(args, 1));
      default -> {
        usage();
        code = 2;
      }
    }
    System.exit(code);
  }

  private static void usage() {
    System.err.println("usage: Tpcds compare|datagen|run|report [options]\n");
    System.err.print(CompareOptions.usage());
  }

  private static int datagen(Args a) throws Exception {
    String data = a.require("data");
    double scale = a.getDouble("scale", 1);
    long chunkRows = a.getLong("chunk-rows", 500_000);
    a.done();
    SparkSession spark = SparkSession.builder().getOrCreate();
    try {
      DataGenerator.generate(spark, data, scale, chunkRows);
    } finally {
      spark.stop();
    }
    return 0;
  }

  private static int run(Args a) throws Exception {
    String sets = a.get("query-set", QueryCatalog.TPCDS);
    QueryRunner.Plan plan =
        new QueryRunner.Plan(
            a.require("app"),
            a.require("side"),
            a.getInt("round", 1),
            a.getInt("batch", 1),
            a.require("data"),
            a.getDouble("scale", 1),
            QueryCatalog.select(sets, a.get("queries", "all")),
            a.getInt("warmup", 0),
            a.require("out"),
            a.getLong("rows-limit", 100_000),
            a.getLong("query-timeout", 0));
    a.done();
    SparkSession spark = SparkSession.builder().getOrCreate();
    try {
      new QueryRunner(spark, plan).run();
    } finally {
      spark.stop();
    }
    return 0; // failed queries are results, not failures of the application
  }

  private static int report(Args a) throws Exception {
    Path in = Paths.get(a.require("in"));
    Path out = Paths.get(a.get("out", in.toString()));
    a.done();
    Report r = Report.load(in);
    Path html = r.write(out);
    System.out.print(r.terminalSummary());
    System.out.println("report: " + html);
    return r.different().isEmpty() && r.failed().isEmpty() ? 0 : 1;
  }
}
