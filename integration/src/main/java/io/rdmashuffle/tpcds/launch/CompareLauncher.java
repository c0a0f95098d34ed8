/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import io.rdmashuffle.tpcds.DatasetLayout;
import io.rdmashuffle.tpcds.QueryCatalog;
import io.rdmashuffle.tpcds.QueryCatalog.Query;
import io.rdmashuffle.tpcds.Storage;
import io.rdmashuffle.tpcds.report.AppRun;
import io.rdmashuffle.tpcds.report.Json;
import io.rdmashuffle.tpcds.report.QueryRun;
import io.rdmashuffle.tpcds.report.Report;
import io.rdmashuffle.tpcds.report.RunInfo;
import io.rdmashuffle.tpcds.spark.QueryRunner;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;

/**
 * The TPC-DS comparison: generates (or reuses) the dataset, then runs the queries on the stock
 * shuffle and on ours, each side as its own Spark application, and merges what they recorded into
 * one report.
 *
 * <p>Process model: a shuffle manager is fixed for the life of a SparkContext, so every application
 * runs one side only. The launcher runs them one at a time, never two at once (each side gets the
 * whole cluster, as in production), in rounds: round r runs every query once on each side, batch by
 * batch, and the order of the sides alternates from one slot to the next (stock, ours | ours, stock
 * | ...), so drift in the machine's load and warm caches falls on both sides alike. Each
 * application starts cold (JVMs, executors); its first {@code warmup} queries are run once untimed
 * before the timed pass. The applications are started with {@code spark-submit} (or, without a
 * Spark distribution, the same {@code SparkSubmit} main on a Spark home's jars), so anything
 * spark-submit accepts works, on a real cluster too; their records travel through a results folder
 * on any Hadoop-compatible path.
 */
public final class CompareLauncher {
  /**
   * One application of the plan.
   *
   * @param label {@code stock-r1-b1}
   * @param side the side's name
   * @param round from 1
   * @param batch from 1
   * @param queries the batch's queries, in order
   */
  record AppSpec(String label, String side, int round, int batch, List<Query> queries) {}

  private final CompareOptions o;
  private final PrintStream out;
  private final Storage storage = new Storage(new Configuration());
  private final Children children;

  CompareLauncher(CompareOptions o, PrintStream out) {
    this.o = o;
    this.out = out;
    this.children = new Children(out, o.stallTimeout());
  }

  /** The applications to run, in order: rounds, batches, sides alternating slot by slot. */
  static List<AppSpec> plan(List<Query> queries, int reps, int batch, String first, String second) {
    int size = batch <= 0 ? queries.size() : batch;
    List<List<Query>> batches = new ArrayList<>();
    for (int i = 0; i < queries.size(); i += size) {
      batches.add(queries.subList(i, Math.min(queries.size(), i + size)));
    }
    List<AppSpec> out = new ArrayList<>();
    int slot = 0;
    for (int r = 1; r <= reps; r++) {
      for (int b = 1; b <= batches.size(); b++, slot++) {
        List<String> order = slot % 2 == 0 ? List.of(first, second) : List.of(second, first);
        for (String side : order) {
          out.add(new AppSpec(side + "-r" + r + "-b" + b, side, r, b, batches.get(b - 1)));
        }
      }
    }
    return out;
  }

  /** Runs the comparison; returns the exit code. */
  int run() throws IOException, InterruptedException {
    Thread hook = new Thread(children::killAll, "tpcds-kill-children");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return runPlanned();
    } finally {
      Runtime.getRuntime().removeShutdownHook(hook);
    }
  }

  private int runPlanned() throws IOException, InterruptedException {
    List<Query> queries = QueryCatalog.select(o.querySets(), o.queries());
    Files.createDirectories(o.out().resolve("logs"));
    Files.createDirectories(o.out().resolve(Report.ROWS));
    SubmitCommand submit =
        new SubmitCommand(
            o.sparkHome(),
            o.sparkSubmit(),
            o.master(),
            o.driverMemory(),
            o.submitArgs(),
            o.appJar());
    Instant started = Instant.now();
    out.printf(
        Locale.ROOT,
        "TPC-DS SF%s, %d queries x %d round(s) x 2 sides on %s; report in %s%n",
        DatasetLayout.scaleName(o.scale()),
        queries.size(),
        o.reps(),
        o.master(),
        o.out());
    out.println("stock: " + o.stock().describe());
    out.println("ours:  " + o.ours().describe());
    if (!ensureData(submit)) {
      return 2;
    }
    List<AppSpec> plan = plan(queries, o.reps(), o.batch(), o.stock().name(), o.ours().name());
    List<Progress.Unit> units = new ArrayList<>();
    for (AppSpec app : plan) {
      for (Query q : runList(app)) {
        units.add(new Progress.Unit(app.label(), q.id()));
      }
    }
    Progress progress = new Progress(units, plan.size(), out, System.nanoTime());
    List<QueryRun> records = new ArrayList<>();
    List<AppRun> apps = new ArrayList<>();
    for (AppSpec app : plan) {
      progress.appStarted();
      runApp(submit, app, progress, records, apps);
    }
    RunInfo info = RunDescription.of(o, queries, apps, started);
    Files.writeString(o.out().resolve(Report.RUN), Json.pretty(info));
    Files.writeString(o.out().resolve(Report.APPS), Json.pretty(apps));
    Files.writeString(o.out().resolve(Report.RECORDS), Json.lines(records));
    Report report = new Report(info, apps, records, Report.rowsIn(o.out().resolve(Report.ROWS)));
    Path html = report.write(o.out());
    out.println();
    out.print(report.terminalSummary());
    out.println("report: " + html);
    List<String> different = report.different();
    List<String> failed = report.failed();
    if (!different.isEmpty()) {
      out.println(
          "FAILED: results differ in "
              + different.size()
              + " queries: "
              + String.join(", ", different));
    }
    if (!failed.isEmpty()) {
      out.println(
          "FAILED: no result from "
              + failed.size()
              + " queries (see logs/): "
              + String.join(", ", failed));
    }
    return different.isEmpty() && failed.isEmpty() ? 0 : 1;
  }

  /** The queries an application runs, warm-up first. */
  List<Query> runList(AppSpec app) {
    List<Query> list = new ArrayList<>();
    for (int w = 0; w < o.warmup(); w++) {
      list.add(app.queries().get(w % app.queries().size()));
    }
    list.addAll(app.queries());
    return list;
  }

  private boolean ensureData(SubmitCommand submit) throws IOException, InterruptedException {
    String marker = DatasetLayout.marker(o.data(), o.scale());
    if (storage.exists(marker)) {
      out.println("data: reusing " + DatasetLayout.dir(o.data(), o.scale()));
      return true;
    }
    out.println(
        "data: generating TPC-DS SF"
            + DatasetLayout.scaleName(o.scale())
            + " into "
            + DatasetLayout.dir(o.data(), o.scale()));
    Map<String, String> conf = o.stock().sparkConf(o.conf());
    List<String> args =
        List.of(
            "datagen",
            "--data",
            o.data(),
            "--scale",
            String.valueOf(o.scale()),
            "--chunk-rows",
            String.valueOf(o.chunkRows()));
    ProcessBuilder pb =
        submit.build(
            "tpcds-datagen-sf" + DatasetLayout.scaleName(o.scale()), conf, List.of(), args);
    AtomicLong lastTable = new AtomicLong(System.nanoTime());
    int code =
        children.run(
            pb,
            o.out().resolve("logs/datagen.log"),
            line -> {
              if (line.startsWith("generated ")
                  || line.startsWith("reusing ")
                  || line.startsWith("skipping ")) {
                out.println("  " + line);
                lastTable.set(
                    System.nanoTime()); // the stall timeout counts from the last table written
              }
            },
            lastTable);
    if (code != 0 || !storage.exists(marker)) {
      out.println(
          "data generation failed (exit code "
              + code
              + "), see "
              + o.out().resolve("logs/datagen.log"));
      return false;
    }
    return true;
  }

  private void runApp(
      SubmitCommand submit,
      AppSpec app,
      Progress progress,
      List<QueryRun> records,
      List<AppRun> apps)
      throws IOException, InterruptedException {
    Side side = app.side().equals(o.stock().name()) ? o.stock() : o.ours();
    String appOut = Storage.child(Storage.child(o.results(), "apps"), app.label());
    storage.delete(appOut);
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--app",
                app.label(),
                "--side",
                app.side(),
                "--round",
                String.valueOf(app.round()),
                "--batch",
                String.valueOf(app.batch()),
                "--data",
                o.data(),
                "--scale",
                String.valueOf(o.scale()),
                "--query-set",
                o.querySets(),
                "--queries",
                String.join(",", app.queries().stream().map(Query::id).toList()),
                "--warmup",
                String.valueOf(o.warmup()),
                "--out",
                appOut,
                "--rows-limit",
                String.valueOf(o.rowsLimit()),
                "--query-timeout",
                String.valueOf(o.queryTimeout())));
    ProcessBuilder pb =
        submit.build(
            "tpcds-" + app.label(),
            side.sparkConf(o.conf()),
            side.jar().map(List::of).orElse(List.of()),
            args);
    long t0 = System.nanoTime();
    int before = progress.done();
    AtomicLong lastProgress = new AtomicLong(System.nanoTime());
    int code =
        children.run(
            pb,
            o.out().resolve("logs/" + app.label() + ".log"),
            line -> {
              if (line.startsWith(QueryRunner.PROGRESS)) {
                String json = line.substring(line.indexOf('{'));
                progress.done(Json.read(json, QueryRun.class), System.nanoTime());
                lastProgress.set(System.nanoTime());
              }
            },
            lastProgress);
    long wall = (System.nanoTime() - t0) / 1_000_000;
    List<QueryRun> mine = collect(app, appOut, code);
    int ran = progress.done() - before;
    progress.skip(runList(app).size() - ran);
    progress.appEnded(wall / 1000.0, mine.stream().mapToLong(QueryRun::millis).sum() / 1000.0);
    records.addAll(mine);
    AppRun run;
    String appJson = Storage.child(appOut, QueryRunner.APP);
    if (storage.exists(appJson)) {
      run = Json.read(storage.read(appJson), AppRun.class);
    } else {
      run =
          new AppRun(
              app.label(),
              app.side(),
              app.round(),
              app.batch(),
              null,
              null,
              o.master(),
              side.shuffleManager(),
              Map.of(),
              app.queries().stream().map(Query::id).toList(),
              Instant.now().toString(),
              0,
              0);
    }
    apps.add(run.withExit(wall, code));
    if (code != 0) {
      out.println(
          app.label()
              + " exited with code "
              + code
              + ", see "
              + o.out().resolve("logs/" + app.label() + ".log"));
    }
  }

  /**
   * The records an application left, its stored results copied into the report folder, and an error
   * record for every run it never made (when it died early).
   */
  private List<QueryRun> collect(AppSpec app, String appOut, int code) throws IOException {
    String recordsFile = Storage.child(appOut, Report.RECORDS);
    List<QueryRun> runs =
        storage.exists(recordsFile)
            ? new ArrayList<>(Json.readLines(storage.read(recordsFile), QueryRun.class))
            : new ArrayList<>();
    String rowsDir = Storage.child(appOut, Report.ROWS);
    Path localRows = o.out().resolve(Report.ROWS);
    for (String name : storage.list(rowsDir)) {
      Path target = localRows.resolve(name);
      if (!Files.exists(target)) {
        Files.writeString(target, storage.read(Storage.child(rowsDir, name)));
      }
    }
    List<Query> expected = runList(app);
    for (int i = runs.size(); i < expected.size(); i++) {
      String error = QueryRun.NOT_RUN;
      runs.add(
          new QueryRun(
              app.side(),
              app.round(),
              app.label(),
              expected.get(i).id(),
              i < o.warmup(),
              QueryRun.ERROR,
              0,
              0,
              io.rdmashuffle.tpcds.result.CanonicalRows.errorDigest(error),
              null,
              error,
              "the application ended (exit code "
                  + code
                  + ") before this query ran; see logs/"
                  + app.label()
                  + ".log",
              0,
              0,
              0,
              0,
              0,
              0,
              0,
              0,
              0,
              Instant.now().toString()));
    }
    return runs;
  }

  /** Entry point of {@code Tpcds compare}. */
  public static int main(String[] argv, int from) throws Exception {
    List<String> args = List.of(argv).subList(from, argv.length);
    if (args.contains("--help") || args.contains("-h")) {
      System.out.print(CompareOptions.usage());
      return 0;
    }
    CompareOptions o;
    try {
      o = CompareOptions.parse(argv, from);
    } catch (IllegalArgumentException e) {
      System.err.println("tpcds: " + e.getMessage());
      System.err.println();
      System.err.print(CompareOptions.usage());
      return 2;
    }
    return new CompareLauncher(o, System.out).run();
  }
}
