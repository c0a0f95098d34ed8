/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The report as one HTML page: header, charts, per-query table, applications. */
final class ReportPage {
  private ReportPage() {}

  static String html(Report r, List<Chart> charts, boolean pngs) {
    StringBuilder b = new StringBuilder();
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
        .append(Html.escape(r.info.title()))
        .append("</title>\n<style>\n")
        .append("body{font-family:sans-serif;margin:24px;color:#222}")
        .append("table{border-collapse:collapse;font-size:13px}")
        .append("td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}")
        .append("td:first-child,th:first-child,.l{text-align:left}")
        .append(".different,.failed{background:#f5b7b1}.same_error{background:#fcf3cf}")
        .append(".hdr td{text-align:left;vertical-align:top}pre{background:#f4f4f4;padding:8px}")
        .append("\n</style></head><body>\n<h1>")
        .append(Html.escape(r.info.title()))
        .append("</h1>\n");
    b.append("<table class=\"hdr\">\n");
    for (Map.Entry<String, String> e : r.info.header().entrySet()) {
      b.append("<tr><th>")
          .append(Html.escape(e.getKey()))
          .append("</th><td><code>")
          .append(Html.escape(e.getValue()))
          .append("</code></td></tr>\n");
    }
    b.append("</table>\n<h2>Summary</h2>\n<pre>")
        .append(Html.escape(r.terminalSummary()))
        .append("</pre>\n");
    b.append("<h2>Charts</h2>\n");
    for (int i = 0; i < charts.size(); i++) {
      b.append("<div>").append(charts.get(i).svg()).append("</div>\n");
      if (pngs) {
        b.append("<p><a href=\"charts/")
            .append(Report.CHART_FILES.get(i))
            .append("\">PNG</a></p>\n");
      }
    }
    b.append("<h2>Queries</h2>\n<table>\n<tr><th>query</th><th>result</th><th>stock s</th>")
        .append("<th>stock min..max</th><th>ours s</th><th>ours min..max</th><th>ours/stock</th>")
        .append("<th>shuffle written stock / ours</th><th>shuffle read stock / ours</th>")
        .append("<th>fetch wait s stock / ours</th><th class=\"l\">note</th></tr>\n");
    for (QueryOutcome o : r.outcomes) {
      String v = o.verdict().name().toLowerCase(Locale.ROOT);
      b.append("<tr class=\"")
          .append(v)
          .append("\"><td>")
          .append(Html.escape(o.query()))
          .append("</td><td>")
          .append(v.replace('_', ' '))
          .append(o.withinTolerance() ? " (~)" : "")
          .append("</td><td>")
          .append(sec(o.stockSeconds().median()))
          .append("</td><td>")
          .append(range(o.stockSeconds()))
          .append("</td><td>")
          .append(sec(o.oursSeconds().median()))
          .append("</td><td>")
          .append(range(o.oursSeconds()))
          .append("</td><td>")
          .append(o.timed() ? String.format(Locale.ROOT, "%.3f", o.ratio()) : "")
          .append("</td><td>")
          .append(Report.bytes(o.stock().writeBytes()))
          .append(" / ")
          .append(Report.bytes(o.ours().writeBytes()))
          .append("</td><td>")
          .append(Report.bytes(o.stock().readBytes()))
          .append(" / ")
          .append(Report.bytes(o.ours().readBytes()))
          .append("</td><td>")
          .append(sec(o.stock().fetchWaitMillis() / 1000.0))
          .append(" / ")
          .append(sec(o.ours().fetchWaitMillis() / 1000.0))
          .append("</td><td class=\"l\">")
          .append(Html.escape(o.error() != null ? o.error() : o.note()))
          .append("</td></tr>\n");
    }
    b.append("</table>\n");
    if (!r.apps.isEmpty()) {
      b.append("<h2>Applications</h2>\n<table>\n<tr><th>app</th><th>Spark id</th>")
          .append("<th>shuffle manager</th><th>queries</th><th>wall s</th><th>exit</th></tr>\n");
      for (AppRun a : r.apps) {
        b.append("<tr><td>")
            .append(Html.escape(a.app()))
            .append("</td><td>")
            .append(Html.escape(a.applicationId()))
            .append("</td><td class=\"l\">")
            .append(Html.escape(a.shuffleManager()))
            .append("</td><td>")
            .append(a.queries() == null ? 0 : a.queries().size())
            .append("</td><td>")
            .append(sec(a.wallMillis() / 1000.0))
            .append("</td><td>")
            .append(a.exitCode())
            .append("</td></tr>\n");
      }
      b.append("</table>\n");
    }
    b.append("</body></html>\n");
    return b.toString();
  }

  private static String sec(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String range(Stats s) {
    return s.n() > 1
        ? String.format(
            Locale.ROOT, "%s..%s (%.0f%%)", sec(s.min()), sec(s.max()), 100 * s.spread())
        : "";
  }
}
