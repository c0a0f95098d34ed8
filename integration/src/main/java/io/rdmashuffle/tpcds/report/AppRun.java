/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import java.util.List;
import java.util.Map;

/**
 * One Spark application of a comparison: one side, one round, one batch of queries. Written by the
 * application ({@code app.json}), completed by the launcher (exit code, wall time).
 *
 * @param app the label, e.g. {@code ours-r1-b1}
 * @param side {@code stock} or {@code ours}
 * @param round repetition, from 1
 * @param batch batch of queries, from 1
 * @param applicationId Spark's application id, or null when it never started
 * @param sparkVersion the Spark version that ran it
 * @param master the master URL
 * @param shuffleManager the value of {@code spark.shuffle.manager}
 * @param settings the Spark settings that matter for a shuffle comparison (shuffle, SQL, executor)
 * @param queries the queries it was asked to run, in order
 * @param startedAt ISO time
 * @param wallMillis launch to exit, measured by the launcher
 * @param exitCode the application's exit code (0 when it ran to the end)
 */
public record AppRun(
    String app,
    String side,
    int round,
    int batch,
    String applicationId,
    String sparkVersion,
    String master,
    String shuffleManager,
    Map<String, String> settings,
    List<String> queries,
    String startedAt,
    long wallMillis,
    int exitCode) {

  public AppRun withExit(long wall, int code) {
    return new AppRun(
        app,
        side,
        round,
        batch,
        applicationId,
        sparkVersion,
        master,
        shuffleManager,
        settings,
        queries,
        startedAt,
        wall,
        code);
  }
}
