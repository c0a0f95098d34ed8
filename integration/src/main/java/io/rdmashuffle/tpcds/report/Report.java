/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmashuffle.tpcds.report.QueryOutcome.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The comparison report: computed from the runs alone (no Spark), so it can be re-rendered from a
 * results folder ({@code Tpcds report DIR}) and tested on a small records file.
 *
 * <p>A results folder holds what the launcher merged ({@code run.json}, {@code apps.json}, {@code
 * records.jsonl}, {@code rows/QUERY-DIGEST.txt}) and what {@link #write} adds: {@code summary.txt},
 * {@code queries.csv}, {@code queries.json}, {@code report.html} with SVG charts, and PNG copies of
 * the charts in {@code charts/}.
 */
public final class Report {
  public static final String RUN = "run.json";
  public static final String APPS = "apps.json";
  public static final String RECORDS = "records.jsonl";
  public static final String ROWS = "rows";

  final RunInfo info;
  final List<AppRun> apps;
  final List<QueryOutcome> outcomes;
  final Summary summary;

  public Report(RunInfo info, List<AppRun> apps, List<QueryRun> runs, Outcomes.RowsSource rows) {
    this.info = info;
    this.apps = List.copyOf(apps);
    this.outcomes = Outcomes.compute(runs, rows);
    this.summary = Summary.of(outcomes);
  }

  /** Reads a results folder the launcher wrote. */
  public static Report load(Path dir) throws IOException {
    ObjectMapper m = new ObjectMapper();
    RunInfo info = Json.read(Files.readString(dir.resolve(RUN)), RunInfo.class);
    List<AppRun> apps =
        Files.exists(dir.resolve(APPS))
            ? m.readValue(dir.resolve(APPS).toFile(), new TypeReference<List<AppRun>>() {})
            : List.of();
    List<QueryRun> runs = Json.readLines(Files.readString(dir.resolve(RECORDS)), QueryRun.class);
    return new Report(info, apps, runs, rowsIn(dir.resolve(ROWS)));
  }

  /** Stored results in {@code dir/QUERY-DIGEST.txt}, one canonical line per row. */
  public static Outcomes.RowsSource rowsIn(Path dir) {
    return (query, digest) -> {
      Path f = dir.resolve(rowsFileName(query, digest));
      try {
        return Files.exists(f)
            ? Optional.of(Files.readAllLines(f, StandardCharsets.UTF_8))
            : Optional.empty();
      } catch (IOException e) {
        return Optional.empty();
      }
    };
  }

  public static String rowsFileName(String query, String digest) {
    return query + "-" + digest + ".txt";
  }

  public List<QueryOutcome> outcomes() {
    return outcomes;
  }

  public Summary summary() {
    return summary;
  }

  /** Queries whose results differ, in order. */
  public List<String> different() {
    return outcomes.stream()
        .filter(o -> o.verdict() == Verdict.DIFFERENT)
        .map(QueryOutcome::query)
        .toList();
  }

  /** Queries with a run that gave no result (application died, timeout), in order. */
  public List<String> failed() {
    return outcomes.stream()
        .filter(o -> o.verdict() == Verdict.FAILED)
        .map(QueryOutcome::query)
        .toList();
  }

  /** Writes summary, CSV, JSON, HTML and PNG charts into {@code dir}; returns the HTML file. */
  public Path write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("summary.txt"), terminalSummary());
    Files.writeString(dir.resolve("queries.csv"), csv());
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("run", info);
    doc.put("summary", summaryMap());
    doc.put("queries", outcomes);
    Files.writeString(dir.resolve("queries.json"), Json.pretty(doc));
    List<Chart> charts = charts();
    Path pngs = dir.resolve("charts");
    Files.createDirectories(pngs);
    List<String> pngNotes = new ArrayList<>();
    for (int i = 0; i < charts.size(); i++) {
      try {
        charts.get(i).png(pngs.resolve(CHART_FILES.get(i)));
      } catch (IOException | RuntimeException | Error e) {
        // no fonts or no AWT: the HTML still has its SVG charts
        pngNotes.add(CHART_FILES.get(i) + ": " + e);
      }
    }
    if (!pngNotes.isEmpty()) {
      System.err.println("PNG charts not written (the HTML has SVG copies): " + pngNotes);
    }
    Path html = dir.resolve("report.html");
    Files.writeString(html, ReportPage.html(this, charts, pngNotes.isEmpty()));
    return html;
  }

  static final List<String> CHART_FILES =
      List.of("times.png", "ratio.png", "shuffle-bytes.png", "fetch-wait.png");

  List<Chart> charts() {
    List<String> labels = outcomes.stream().map(QueryOutcome::query).toList();
    List<String> names = List.of("stock", "ours");
    List<String> colors = List.of(Chart.STOCK_COLOR, Chart.OURS_COLOR);
    double[] stockT = outcomes.stream().mapToDouble(o -> nz(o.stockSeconds().median())).toArray();
    double[] oursT = outcomes.stream().mapToDouble(o -> nz(o.oursSeconds().median())).toArray();
    double[] ratios = outcomes.stream().mapToDouble(QueryOutcome::ratio).toArray();
    double[] stockB =
        outcomes.stream().mapToDouble(o -> o.stock().readBytes() / 1048576.0).toArray();
    double[] oursB = outcomes.stream().mapToDouble(o -> o.ours().readBytes() / 1048576.0).toArray();
    double[] stockW =
        outcomes.stream().mapToDouble(o -> o.stock().fetchWaitMillis() / 1000.0).toArray();
    double[] oursW =
        outcomes.stream().mapToDouble(o -> o.ours().fetchWaitMillis() / 1000.0).toArray();
    return List.of(
        new Chart.Bars(
            "Time per query (median, seconds)",
            labels,
            names,
            colors,
            List.of(stockT, oursT),
            Report::secondsLabel),
        new Chart.Ratios("ours / stock per query (median times)", labels, ratios),
        new Chart.Bars(
            "Shuffle bytes read per query (MiB)",
            labels,
            names,
            colors,
            List.of(stockB, oursB),
            v -> trim(v)),
        new Chart.Bars(
            "Shuffle fetch wait per query (seconds, summed over tasks)",
            labels,
            names,
            colors,
            List.of(stockW, oursW),
            Report::secondsLabel));
  }

  private static double nz(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  private static String secondsLabel(double v) {
    return trim(v) + " s";
  }

  /** A tick label: at most three significant digits, no trailing zeros. */
  private static String trim(double v) {
    return new java.math.BigDecimal(v)
        .round(new java.math.MathContext(3))
        .stripTrailingZeros()
        .toPlainString();
  }

  /** The summary printed on the terminal and saved as summary.txt. */
  public String terminalSummary() {
    StringBuilder b = new StringBuilder();
    b.append(info.title()).append('\n');
    Summary s = summary;
    List<String> errors =
        outcomes.stream()
            .filter(o -> o.verdict() == Verdict.SAME_ERROR)
            .map(o -> o.query() + " " + o.error())
            .toList();
    b.append(
        String.format(
            Locale.ROOT,
            "results: %d queries: %d equal, %d different, %d failed%s%n",
            s.queries(),
            s.equal(),
            s.different(),
            s.failed(),
            s.withinTolerance() > 0
                ? " (" + s.withinTolerance() + " equal within double tolerance)"
                : ""));
    if (!errors.isEmpty()) {
      b.append("  failed the same way on both sides (counted equal): ")
          .append(String.join(", ", errors))
          .append('\n');
    }
    if (s.timed() > 0) {
      b.append(
          String.format(
              Locale.ROOT,
              "time over %d queries both sides ran: stock %.1f s, ours %.1f s, ours/stock %.3f%n",
              s.timed(),
              s.stockTotal(),
              s.oursTotal(),
              s.ratio()));
      b.append(
          String.format(
              Locale.ROOT,
              "geometric mean: stock %.3f s, ours %.3f s, ours/stock %.3f%n",
              s.stockGeomean(),
              s.oursGeomean(),
              s.geomeanRatio()));
      b.append("biggest wins:   ").append(moves(s.wins())).append('\n');
      b.append("biggest losses: ").append(moves(s.losses())).append('\n');
    }
    for (QueryOutcome o : outcomes) {
      if (o.verdict() == Verdict.DIFFERENT || o.verdict() == Verdict.FAILED) {
        b.append(o.verdict())
            .append(' ')
            .append(o.query())
            .append(": ")
            .append(o.note())
            .append('\n');
      }
    }
    return b.toString();
  }

  private static String moves(List<QueryOutcome> list) {
    if (list.isEmpty()) {
      return "none";
    }
    return list.stream()
        .map(
            o ->
                String.format(
                    Locale.ROOT, "%s %+.2f s (%.2fx)", o.query(), -o.savedSeconds(), o.ratio()))
        .collect(Collectors.joining(", "));
  }

  private Map<String, Object> summaryMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    Summary s = summary;
    m.put("queries", s.queries());
    m.put("equal", s.equal());
    m.put("sameError", s.sameError());
    m.put("different", s.different());
    m.put("differentQueries", different());
    m.put("failed", s.failed());
    m.put("failedQueries", failed());
    m.put("withinTolerance", s.withinTolerance());
    m.put("timedQueries", s.timed());
    m.put("stockTotalSeconds", s.stockTotal());
    m.put("oursTotalSeconds", s.oursTotal());
    m.put("ratio", s.ratio());
    m.put("stockGeomeanSeconds", s.stockGeomean());
    m.put("oursGeomeanSeconds", s.oursGeomean());
    m.put("geomeanRatio", s.geomeanRatio());
    Function<List<QueryOutcome>, List<String>> names =
        l -> l.stream().map(QueryOutcome::query).toList();
    m.put("wins", names.apply(s.wins()));
    m.put("losses", names.apply(s.losses()));
    return m;
  }

  static final String CSV_HEADER =
      "query,verdict,within_tolerance,stock_runs,stock_median_s,"
          + "stock_min_s,stock_max_s,stock_spread,ours_runs,ours_median_s,ours_min_s,ours_max_s,"
          + "ours_spread,ratio,"
          + "stock_shuffle_write_bytes,ours_shuffle_write_bytes,stock_shuffle_read_bytes,"
          + "ours_shuffle_read_bytes,stock_remote_bytes,ours_remote_bytes,stock_fetch_wait_ms,"
          + "ours_fetch_wait_ms,stock_digests,ours_digests,error,note";

  String csv() {
    StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
    for (QueryOutcome o : outcomes) {
      List<Object> f = new ArrayList<>();
      f.add(o.query());
      f.add(o.verdict().name().toLowerCase(Locale.ROOT));
      f.add(o.withinTolerance());
      stats(f, o.stockSeconds());
      stats(f, o.oursSeconds());
      f.add(num(o.ratio()));
      f.add(o.stock().writeBytes());
      f.add(o.ours().writeBytes());
      f.add(o.stock().readBytes());
      f.add(o.ours().readBytes());
      f.add(o.stock().remoteBytes());
      f.add(o.ours().remoteBytes());
      f.add(o.stock().fetchWaitMillis());
      f.add(o.ours().fetchWaitMillis());
      f.add(String.join(" ", o.stockResults()));
      f.add(String.join(" ", o.oursResults()));
      f.add(o.error() == null ? "" : o.error());
      f.add(o.note());
      b.append(f.stream().map(v -> csvField(String.valueOf(v))).collect(Collectors.joining(",")))
          .append('\n');
    }
    return b.toString();
  }

  private static void stats(List<Object> f, Stats s) {
    f.add(s.n());
    f.add(num(s.median()));
    f.add(num(s.min()));
    f.add(num(s.max()));
    f.add(s.present() ? num(s.spread()) : "");
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
  }

  static String csvField(String v) {
    if (v.contains(",") || v.contains("\"") || v.contains("\n")) {
      return '"' + v.replace("\"", "\"\"") + '"';
    }
    return v;
  }

  static String bytes(long b) {
    if (b < 1024) {
      return b + " B";
    }
    if (b < 1 << 20) {
      return String.format(Locale.ROOT, "%.1f KiB", b / 1024.0);
    }
    if (b < 1L << 30) {
      return String.format(Locale.ROOT, "%.1f MiB", b / 1048576.0);
    }
    return String.format(Locale.ROOT, "%.2f GiB", b / 1073741824.0);
  }
}
