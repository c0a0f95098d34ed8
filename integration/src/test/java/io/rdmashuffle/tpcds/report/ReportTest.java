/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import static io.rdmashuffle.tpcds.report.Runs.error;
import static io.rdmashuffle.tpcds.report.Runs.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  private static final List<String> ROWS = List.of("a|1");

  @BeforeAll
  static void headless() {
    System.setProperty("java.awt.headless", "true");
  }

  /** q1..q8 equal with stock/ours times 1..8 s vs 8..1 s, q90 the same error, q5x different. */
  static List<QueryRun> sample() {
    List<QueryRun> runs = new ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      runs.add(ok("stock", 1, "q" + i, 1000L * i, ROWS));
      runs.add(ok("ours", 1, "q" + i, 1000L * (9 - i), ROWS));
    }
    runs.add(error("stock", 1, "q90", "DIVIDE_BY_ZERO"));
    runs.add(error("ours", 1, "q90", "DIVIDE_BY_ZERO"));
    runs.add(ok("stock", 1, "q5x", 1000, ROWS));
    runs.add(ok("ours", 1, "q5x", 1000, List.of("b|2")));
    return runs;
  }

  static RunInfo info() {
    return new RunInfo(
        "TPC-DS SF0.1 on local-cluster[2,1,2048]: stock (sort) vs ours (sort)",
        Map.of("Spark", "4.1.3", "transport", "tcp"));
  }

  @Test
  void summaryCountsTotalsAndTheBiggestMoves() {
    Report r = new Report(info(), List.of(), sample(), Outcomes.RowsSource.NONE);
    Summary s = r.summary();
    assertEquals(10, s.queries());
    assertEquals(9, s.equal());
    assertEquals(1, s.sameError());
    assertEquals(1, s.different());
    assertEquals(0, s.failed());
    assertEquals(8, s.timed());
    assertEquals(36, s.stockTotal(), 1e-9);
    assertEquals(36, s.oursTotal(), 1e-9);
    assertEquals(1.0, s.ratio(), 1e-9);
    assertEquals(s.stockGeomean(), s.oursGeomean(), 1e-9);
    assertEquals(
        List.of("q8", "q7", "q6", "q5"), s.wins().stream().map(QueryOutcome::query).toList());
    assertEquals(
        List.of("q1", "q2", "q3", "q4"), s.losses().stream().map(QueryOutcome::query).toList());
    assertEquals(List.of("q5x"), r.different());
    String text = r.terminalSummary();
    assertTrue(text.contains("10 queries: 9 equal, 1 different, 0 failed"), text);
    assertTrue(text.contains("q90 DIVIDE_BY_ZERO"), text);
    assertTrue(text.contains("biggest wins:   q8 -7.00 s (0.13x)"), text);
    assertTrue(text.contains("DIFFERENT q5x"), text);
  }

  @Test
  void writesCsvJsonHtmlAndPngCharts(@TempDir Path dir) throws Exception {
    Report r = new Report(info(), List.of(), sample(), Outcomes.RowsSource.NONE);
    Path html = r.write(dir);
    List<String> csv = Files.readAllLines(dir.resolve("queries.csv"));
    assertEquals(Report.CSV_HEADER, csv.get(0));
    assertEquals(11, csv.size());
    assertTrue(
        csv.get(1)
            .startsWith(
                "q1,equal,false,1,1.000,1.000,1.000,0.000,1,8.000,8.000,8.000,0.000,8.000,"),
        csv.get(1));
    String json = Files.readString(dir.resolve("queries.json"));
    assertTrue(json.contains("\"differentQueries\" : [ \"q5x\" ]"), json);
    String page = Files.readString(html);
    assertTrue(page.contains("<svg"), "charts are embedded");
    assertTrue(
        page.contains("4.1.3") && page.contains("tcp"), "header shows Spark version and transport");
    assertTrue(page.contains("class=\"different\"><td>q5x"), "differences stand out");
    for (String png : Report.CHART_FILES) {
      BufferedImage image = ImageIO.read(dir.resolve("charts").resolve(png).toFile());
      assertNotNull(image, png);
      assertTrue(image.getWidth() >= 900 && image.getHeight() > 10 * 12, png);
    }
    assertTrue(Files.readString(dir.resolve("summary.txt")).contains("9 equal"));
  }

  @Test
  void aResultsFolderLoadsAndRendersAgain(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve(Report.RUN), Json.pretty(info()));
    Files.writeString(dir.resolve(Report.RECORDS), Json.lines(sample()));
    AppRun app =
        new AppRun(
                "stock-r1-b1",
                "stock",
                1,
                1,
                "app-1",
                "4.1.3",
                "local-cluster[2,1,2048]",
                "sort",
                Map.of("spark.shuffle.compress", "true"),
                List.of("q1"),
                "2026-01-01T00:00:00Z",
                0,
                0)
            .withExit(12_000, 0);
    Files.writeString(dir.resolve(Report.APPS), Json.pretty(List.of(app)));
    Report r = Report.load(dir);
    assertEquals(List.of("q5x"), r.different());
    Path html = r.write(dir.resolve("again"));
    assertTrue(Files.readString(html).contains("app-1"));
  }

  @Test
  void csvFieldsWithCommasAndQuotesAreQuoted() {
    assertEquals("\"a,b\"", Report.csvField("a,b"));
    assertEquals("\"say \"\"hi\"\"\"", Report.csvField("say \"hi\""));
    assertEquals("plain", Report.csvField("plain"));
  }

  @Test
  void chartTicksAreRound() {
    assertEquals(
        List.of(0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0),
        java.util.Arrays.stream(Chart.ticks(11.3)).boxed().toList());
    assertEquals(
        List.of(0.0, 0.5, 1.0, 1.5, 2.0, 2.5),
        java.util.Arrays.stream(Chart.ticks(2.3)).boxed().toList());
  }

  @Test
  void bytesAreHuman() {
    assertEquals("512 B", Report.bytes(512));
    assertEquals("1.5 KiB", Report.bytes(1536));
    assertEquals("2.0 MiB", Report.bytes(2 << 20));
  }
}
