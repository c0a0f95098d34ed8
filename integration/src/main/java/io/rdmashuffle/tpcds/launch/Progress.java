package io.rdmashuffle.tpcds.launch;

import io.rdmashuffle.tpcds.report.QueryRun;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Progress of a long comparison on the terminal: query i of N, elapsed time and an estimate of the
 * time left. The estimate adds, for every query run still to come, the last time that query took
 * (on either side) or the mean of all runs so far, plus the mean start-up cost of an application
 * for each application still to start.
 */
final class Progress {
  /** One query run the comparison will make, in order. */
  record Unit(String app, String query) {}

  private final List<Unit> units;
  private final PrintStream out;
  private final long startNanos;
  private final Map<String, Double> lastSeconds = new HashMap<>();
  private double sumSeconds;
  private int runs;
  private int done;
  private int appsStarted;
  private final int apps;
  private double overheadSeconds;

  Progress(List<Unit> units, int apps, PrintStream out, long startNanos) {
    this.units = List.copyOf(units);
    this.apps = apps;
    this.out = out;
    this.startNanos = startNanos;
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
    done = Math.min(units.size(), done + n);
  }

  void done(QueryRun r, long nowNanos) {
    double s = r.millis() / 1000.0;
    lastSeconds.put(r.query(), s);
    sumSeconds += s;
    runs++;
    done = Math.min(units.size(), done + 1);
    out.println(line(r, nowNanos));
    out.flush();
  }

  String line(QueryRun r, long nowNanos) {
    int width = String.valueOf(units.size()).length();
    return String.format(
        Locale.ROOT,
        "[%" + width + "d/%d] %-20s %-10s %8.1f s  %-5s%s | elapsed %s, left ~%s",
        done,
        units.size(),
        r.app() + (r.warmup() ? " warm-up" : ""),
        r.query(),
        r.millis() / 1000.0,
        r.ok() ? "ok" : "ERROR",
        r.ok() ? "" : " " + r.error(),
        clock((nowNanos - startNanos) / 1e9),
        clock(secondsLeft()));
  }

  double secondsLeft() {
    double mean = runs == 0 ? 10 : sumSeconds / runs;
    double left = 0;
    for (int i = done; i < units.size(); i++) {
      left += lastSeconds.getOrDefault(units.get(i).query(), mean);
    }
    int ended = Math.max(1, appsStarted);
    return left + Math.max(0, apps - appsStarted) * (overheadSeconds / ended);
  }

  int done() {
    return done;
  }

  static String clock(double seconds) {
    long s = Math.max(0, Math.round(seconds));
    return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  }
}
