/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import io.rdmashuffle.tpcds.report.QueryRun;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Progress of a long comparison on the terminal: query i of N, elapsed time and an estimate of the
 * time left ({@link io.rdmashuffle.tools.Progress}: for every query run still to come, the last
 * time that query took, on either side, or the mean of all runs so far), plus the mean start-up
 * cost of an application for each application still to start. One plain line per query run.
 */
final class Progress {
  /** One query run the comparison will make, in order. */
  record Unit(String app, String query) {}

  private final io.rdmashuffle.tools.Progress core;
  private final PrintStream out;
  private int appsStarted;
  private final int apps;
  private double overheadSeconds;

  Progress(List<Unit> units, int apps, PrintStream out, long startNanos) {
    this.core =
        new io.rdmashuffle.tools.Progress(
            units.stream().map(Unit::query).toList(), out, false, startNanos);
    this.apps = apps;
    this.out = out;
  }

  void appStarted() {
    appsStarted++;
  }

  /** An application ended: its wall time less its query times is its start-up cost. */
  void appEnded(double wallSeconds, double querySeconds) {
    overheadSeconds += Math.max(0, wallSeconds - querySeconds);
  }

  /** Skips units an application never ran (it ended early). */
  void skip(int n) {
    core.skip(n);
  }

  void done(QueryRun r, long nowNanos) {
    core.record(r.query(), r.millis() / 1000.0);
    out.println(line(r, nowNanos));
    out.flush();
  }

  String line(QueryRun r, long nowNanos) {
    return core.status(
        String.format(
            Locale.ROOT,
            "%-20s %-10s %8.1f s  %-5s%s",
            r.app() + (r.warmup() ? " warm-up" : ""),
            r.query(),
            r.millis() / 1000.0,
            r.ok() ? "ok" : "ERROR",
            r.ok() ? "" : " " + r.error()),
        nowNanos,
        startsLeftSeconds());
  }

  double secondsLeft() {
    return core.secondsLeft() + startsLeftSeconds();
  }

  /** The applications still to start, at the mean start-up cost of those started. */
  private double startsLeftSeconds() {
    int ended = Math.max(1, appsStarted);
    return Math.max(0, apps - appsStarted) * (overheadSeconds / ended);
  }

  int done() {
    return core.done();
  }

  static String clock(double seconds) {
    return io.rdmashuffle.tools.Progress.clock(seconds);
  }
}
