/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import io.rdmashuffle.tpcds.result.CanonicalRows;
import java.util.List;

/** Query runs for tests. */
final class Runs {
  private Runs() {}

  static QueryRun ok(String side, int round, String query, long millis, List<String> rows) {
    return new QueryRun(
        side,
        round,
        side + "-r" + round + "-b1",
        query,
        false,
        QueryRun.OK,
        millis,
        rows.size(),
        CanonicalRows.digest(rows),
        CanonicalRows.orderedDigest(rows),
        null,
        null,
        1000 * millis,
        10,
        1000 * millis,
        100,
        1000 * millis - 100,
        millis / 10,
        1,
        4,
        0,
        "2026-01-01T00:00:00Z");
  }

  static QueryRun warmup(QueryRun r) {
    return new QueryRun(
        r.side(),
        r.round(),
        r.app(),
        r.query(),
        true,
        r.status(),
        r.millis(),
        r.rows(),
        r.digest(),
        r.orderedDigest(),
        r.error(),
        r.errorMessage(),
        r.shuffleWriteBytes(),
        r.shuffleWriteRecords(),
        r.shuffleReadBytes(),
        r.shuffleRemoteBytes(),
        r.shuffleLocalBytes(),
        r.fetchWaitMillis(),
        r.shuffleWriteMillis(),
        r.tasks(),
        r.failedTasks(),
        r.startedAt());
  }

  static QueryRun error(String side, int round, String query, String error) {
    return new QueryRun(
        side,
        round,
        side + "-r" + round + "-b1",
        query,
        false,
        QueryRun.ERROR,
        500,
        0,
        CanonicalRows.errorDigest(error),
        CanonicalRows.errorDigest(error),
        error,
        "SparkException: stage 12 failed",
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        3,
        3,
        "2026-01-01T00:00:00Z");
  }
}
