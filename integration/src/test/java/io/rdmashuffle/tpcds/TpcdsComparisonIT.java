/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.tpcds.launch.CompareLauncher;
import io.rdmashuffle.tpcds.report.Report;
import io.rdmashuffle.tpcds.report.Summary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TPC-DS comparison in CI: every query of Spark's {@code tpcds/} set at a small scale factor
 * (0.1) in local-cluster mode, stock shuffle against ours, one round, no warm-up; every query must
 * return the same result on both sides. Run by {@code mvn verify} (Failsafe, after the runner's jar
 * and Spark home are packaged); the pom's {@code tpcds.ci.*} properties choose the sides, scale and
 * queries ({@code -Dtpcds.ci.queries=q1,q5} for a quick local check, {@code -DskipITs} to skip).
 * The report lands in {@code integration/target/tpcds-ci/}.
 */
class TpcdsComparisonIT {
  private static String prop(String name) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(
          "system property " + name + " is not set (run through Maven: mvn verify)");
    }
    return v;
  }

  @Test
  @Timeout(value = 80, unit = TimeUnit.MINUTES)
  void everyQueryReturnsTheSameResultOnTheStockShuffleAndOnOurs() throws Exception {
    Path out = Path.of(prop("tpcds.out"));
    String queries = System.getProperty("tpcds.queries", "all");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--scale",
                prop("tpcds.scale"),
                "--reps",
                "1",
                "--warmup",
                "0",
                "--queries",
                queries.isBlank() ? "all" : queries,
                "--data",
                prop("tpcds.data"),
                "--out",
                out.toString(),
                "--spark-home",
                prop("tpcds.sparkHome"),
                "--app-jar",
                prop("tpcds.appJar"),
                "--ours-class",
                prop("tpcds.oursClass"),
                "--ours-jar",
                prop("tpcds.oursJar"),
                "--query-timeout",
                "600",
                "--stall-timeout",
                "900"));
    int code = CompareLauncher.main(args.toArray(String[]::new), 0);
    assertTrue(
        Files.exists(out.resolve(Report.RUN)),
        "the comparison never ran (exit code " + code + "): see " + out.resolve("logs"));

    Report report = Report.load(out);
    Summary s = report.summary();
    String summary = Files.readString(out.resolve("summary.txt"));
    assertEquals(List.of(), report.different(), summary);
    assertEquals(List.of(), report.failed(), summary);
    assertEquals(0, code, summary);
    assertEquals(s.queries(), s.equal(), summary);
    if ("all".equals(queries) || queries.isBlank()) {
      assertEquals(103, s.queries(), summary);
    }
    assertTrue(s.timed() > 0, summary);
  }
}
