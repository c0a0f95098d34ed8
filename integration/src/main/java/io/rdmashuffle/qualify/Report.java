/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.tpcds.report.Chart;
import io.rdmashuffle.tpcds.report.Html;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The qualify report: {@code report.md} (what an operator reads and pastes into a ticket) and
 * {@code report.html} (the same with charts of READ bandwidth and latency, perftest beside
 * rdma-shuffle, per pair and size; PNG copies in {@code charts/}). Every check with its verdict,
 * what was found and, for anything but a pass, the setting to change.
 */
final class Report {
  /** What one run of qualify found. */
  record Result(
      String title,
      List<String> about,
      List<HostReport> hosts,
      List<Check> pairChecks,
      List<PairTests.Figures> figures) {
    List<Check> all() {
      List<Check> out = new ArrayList<>();
      hosts.forEach(h -> out.addAll(h.checks()));
      out.addAll(pairChecks);
      return out;
    }

    boolean blocksVerbs() {
      return all().stream().anyMatch(Check::blocksVerbs);
    }

    boolean failed() {
      return all().stream().anyMatch(c -> c.verdict() == Verdict.FAIL);
    }

    /** One line: can verbs be used, and how many checks failed or warn. */
    String verdict() {
      long fails = all().stream().filter(c -> c.verdict() == Verdict.FAIL).count();
      long warns = all().stream().filter(c -> c.verdict() == Verdict.WARN).count();
      String head =
          blocksVerbs()
              ? "verbs can't be used"
              : fails > 0 ? "verbs can be used, but checks failed" : "verbs can be used";
      return head + ": " + fails + " failed, " + warns + " to improve (warnings)";
    }
  }

  private Report() {}

  static String size(int bytes) {
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes >= 1024 && bytes % 1024 == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes + " B";
  }

  static String markdown(Result r) {
    StringBuilder b = new StringBuilder();
    b.append("# ").append(r.title()).append("\n\n");
    r.about().forEach(a -> b.append("* ").append(a).append('\n'));
    b.append("\n**").append(r.verdict()).append(".**\n\n");
    List<Check> todo = r.all().stream().filter(c -> c.verdict().ordinal() >= 3).toList();
    if (!todo.isEmpty()) {
      b.append("## What to do\n\n");
      for (Check c : todo) {
        b.append("* **")
            .append(c.verdict())
            .append(c.blocksVerbs() ? " (verbs can't be used)" : "")
            .append("**, ")
            .append(c.scope())
            .append(", ")
            .append(c.name())
            .append(": ")
            .append(c.advice())
            .append('\n');
      }
      b.append('\n');
    }
    for (HostReport h : r.hosts()) {
      b.append("## Host ").append(h.label()).append("\n\n");
      table(b, h.checks());
    }
    if (!r.pairChecks().isEmpty()) {
      b.append("## Between hosts\n\n");
      table(b, r.pairChecks());
    }
    for (PairTests.Figures f : r.figures()) {
      figures(b, f);
    }
    return b.toString();
  }

  private static void table(StringBuilder b, List<Check> checks) {
    b.append("| check | verdict | found | what to do |\n| --- | --- | --- | --- |\n");
    for (Check c : checks) {
      b.append("| ")
          .append(c.scope().contains(" reads ") ? c.scope() + ": " : "")
          .append(cell(c.name()))
          .append(" | ")
          .append(c.verdict())
          .append(" | ")
          .append(cell(c.found()))
          .append(" | ")
          .append(cell(c.advice()))
          .append(" |\n");
    }
    b.append('\n');
  }

  private static void figures(StringBuilder b, PairTests.Figures f) {
    Map<Integer, double[]> rows = rows(f);
    if (rows.isEmpty()) {
      return;
    }
    b.append("### READ figures: ").append(f.pair()).append("\n\n");
    b.append(
        "| size | perftest ib_read_bw (MB/s) | rdma-shuffle (MB/s) | ratio | perftest ib_read_lat"
            + " typical (µs) | rdma-shuffle typical (µs) | ratio |\n");
    b.append("| --- | --- | --- | --- | --- | --- | --- |\n");
    rows.forEach(
        (size, v) ->
            b.append(
                String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s | %s |%n",
                    size(size),
                    num(v[0]),
                    num(v[1]),
                    num(v[1] / v[0]),
                    num(v[2]),
                    num(v[3]),
                    num(v[3] / v[2]))));
    b.append('\n');
  }

  /** size to {perftest bw, ours bw, perftest lat, ours lat}. */
  private static Map<Integer, double[]> rows(PairTests.Figures f) {
    Map<Integer, double[]> rows = new LinkedHashMap<>();
    f.values()
        .forEach(
            (k, v) -> {
              String[] p = k.split("\\.");
              int size = Integer.parseInt(p[2]);
              double[] row =
                  rows.computeIfAbsent(
                      size, s -> new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN});
              int i = (p[0].equals("ours") ? 1 : 0) + (p[1].equals("lat") ? 2 : 0);
              row[i] = v;
            });
    return rows;
  }

  private static String num(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String cell(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }

  /** Writes report.md, report.html and charts/*.png into {@code dir}. */
  static void write(Path dir, Result r) throws IOException {
    Files.createDirectories(dir.resolve("charts"));
    String md = markdown(r);
    Files.writeString(dir.resolve("report.md"), md, StandardCharsets.UTF_8);
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>")
        .append(Html.escape(r.title()))
        .append("</title><style>body{font-family:sans-serif;max-width:1100px;margin:auto}")
        .append("table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px;")
        .append("vertical-align:top;font-size:13px}.PASS{background:#e8f6ec}.WARN{background:")
        .append("#fff4d6}.FAIL{background:#fde2e0}.SKIP{background:#eeeeee}</style></head><body>")
        .append("<h1>")
        .append(Html.escape(r.title()))
        .append("</h1><ul>");
    r.about().forEach(a -> h.append("<li>").append(Html.escape(a)).append("</li>"));
    h.append("</ul><p><b>").append(Html.escape(r.verdict())).append(".</b></p>");
    for (HostReport host : r.hosts()) {
      h.append("<h2>Host ").append(Html.escape(host.label())).append("</h2>");
      htmlTable(h, host.checks());
    }
    if (!r.pairChecks().isEmpty()) {
      h.append("<h2>Between hosts</h2>");
      htmlTable(h, r.pairChecks());
    }
    int n = 0;
    for (PairTests.Figures f : r.figures()) {
      Map<Integer, double[]> rows = rows(f);
      if (rows.isEmpty()) {
        continue;
      }
      List<String> labels = rows.keySet().stream().map(Report::size).toList();
      double[][] cols = new double[4][rows.size()];
      int i = 0;
      for (double[] v : rows.values()) {
        for (int c = 0; c < 4; c++) {
          cols[c][i] = Double.isNaN(v[c]) ? 0 : v[c];
        }
        i++;
      }
      h.append("<h2>READ figures: ").append(Html.escape(f.pair())).append("</h2>");
      Chart bw =
          new Chart.Bars(
              "READ bandwidth, MB/s (higher is better): " + f.pair(),
              labels,
              List.of("perftest ib_read_bw", "rdma-shuffle"),
              List.of(Chart.STOCK_COLOR, Chart.OURS_COLOR),
              List.of(cols[0], cols[1]),
              v -> String.format(Locale.ROOT, "%.0f", v));
      Chart lat =
          new Chart.Bars(
              "READ latency, typical µs (lower is better): " + f.pair(),
              labels,
              List.of("perftest ib_read_lat", "rdma-shuffle"),
              List.of(Chart.STOCK_COLOR, Chart.OURS_COLOR),
              List.of(cols[2], cols[3]),
              v -> String.format(Locale.ROOT, "%.0f", v));
      n++;
      h.append(bw.svg()).append(lat.svg());
      bw.png(dir.resolve("charts/pair" + n + "-bandwidth.png"));
      lat.png(dir.resolve("charts/pair" + n + "-latency.png"));
    }
    h.append("</body></html>\n");
    Files.writeString(dir.resolve("report.html"), h.toString(), StandardCharsets.UTF_8);
  }

  private static void htmlTable(StringBuilder h, List<Check> checks) {
    h.append("<table><tr><th>check</th><th>verdict</th><th>found</th><th>what to do</th></tr>");
    for (Check c : checks) {
      h.append("<tr class=\"")
          .append(c.verdict())
          .append("\"><td>")
          .append(Html.escape((c.scope().contains(" reads ") ? c.scope() + ": " : "") + c.name()))
          .append("</td><td>")
          .append(c.verdict())
          .append(c.blocksVerbs() ? " (verbs can't be used)" : "")
          .append("</td><td>")
          .append(Html.escape(c.found()))
          .append("</td><td>")
          .append(Html.escape(c.advice()))
          .append("</td></tr>");
    }
    h.append("</table>");
  }
}
