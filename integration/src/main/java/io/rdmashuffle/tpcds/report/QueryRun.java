/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

/**
 * One run of one TPC-DS query in one application: what the runner records, one JSON object per line
 * in {@code records.jsonl}. Written by the query application, merged by the launcher, read by the
 * report.
 *
 * @param side {@code stock} or {@code ours}
 * @param round repetition, from 1; each round runs every query once per side
 * @param app the application that ran it, e.g. {@code stock-r2-b1}
 * @param query query id: {@code q14a} for Spark's {@code tpcds/}, {@code q14a-v2.7} for {@code
 *     tpcds-v2.7.0/}
 * @param warmup an untimed warm-up run (its result is still compared)
 * @param status {@code ok} or {@code error}
 * @param millis wall time from parsing to the last row collected on the driver
 * @param rows rows returned
 * @param digest {@code CanonicalRows.digest} of the rows, or of the error
 * @param orderedDigest digest of the rows in the order returned
 * @param error canonical error (the deepest Spark error condition, else the root exception class),
 *     or null
 * @param errorMessage first line of the error's message, or null
 * @param shuffleWriteBytes bytes the query's map tasks wrote to shuffle files
 * @param shuffleWriteRecords records written to shuffle files
 * @param shuffleReadBytes bytes its reduce tasks read (local and remote)
 * @param shuffleRemoteBytes the remote part of {@code shuffleReadBytes}
 * @param shuffleLocalBytes the local and host-local part of {@code shuffleReadBytes}
 * @param fetchWaitMillis time reduce tasks spent blocked waiting for shuffle data, summed
 * @param shuffleWriteMillis time map tasks spent writing shuffle data, summed
 * @param tasks tasks run (all stages, including failed attempts)
 * @param failedTasks failed task attempts
 * @param startedAt ISO time the run started
 */
public record QueryRun(
    String side,
    int round,
    String app,
    String query,
    boolean warmup,
    String status,
    long millis,
    long rows,
    String digest,
    String orderedDigest,
    String error,
    String errorMessage,
    long shuffleWriteBytes,
    long shuffleWriteRecords,
    long shuffleReadBytes,
    long shuffleRemoteBytes,
    long shuffleLocalBytes,
    long fetchWaitMillis,
    long shuffleWriteMillis,
    long tasks,
    long failedTasks,
    String startedAt) {

  public static final String OK = "ok";
  public static final String ERROR = "error";

  /** The error of a run its application never made (it died first): no result at all. */
  public static final String NOT_RUN = "APPLICATION_FAILED";

  /** Prefix of the error of a run cancelled after the query timeout: no result at all. */
  public static final String TIMEOUT = "TIMEOUT";

  public boolean ok() {
    return OK.equals(status);
  }

  /**
   * No result to compare: the run never happened or was cancelled. Unlike a query's own error, this
   * is never an equal result, even when it happened on both sides.
   */
  public boolean noResult() {
    return error != null && (error.equals(NOT_RUN) || error.startsWith(TIMEOUT));
  }
}
