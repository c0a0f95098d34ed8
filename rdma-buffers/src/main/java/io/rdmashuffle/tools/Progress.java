/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Progress of a long run made of steps known in advance (rounds of a benchmark, query runs of a
 * comparison): step k of n, what it was, elapsed time and an estimate of the time left. The
 * estimate adds, for every step still to come, the last time a step of the same key took (a
 * benchmark's side and block size, a query) or the mean of all steps so far. On a terminal the
 * status is one line rewritten in place ({@link #finish()} ends it); otherwise one plain line per
 * step.
 */
public final class Progress {
  private final List<String> keys;
  private final PrintStream out;
  private final boolean updating;
  private final long startNanos;
  private final Map<String, Double> lastSeconds = new HashMap<>();
  private final Map<String, Double> expected = new HashMap<>();
  private double sumSeconds;
  private int runs;
  private int done;
  private boolean open;

  /**
   * @param keys every step's key, in the order they will run
   * @param updating rewrite one line (a terminal) rather than print a line per step
   */
  public Progress(List<String> keys, PrintStream out, boolean updating, long startNanos) {
    this.keys = List.copyOf(keys);
    this.out = out;
    this.updating = updating;
    this.startNanos = startNanos;
  }

  /** On standard error, one updating line when this process has a terminal, from now. */
  public static Progress onStderr(List<String> keys) {
    return new Progress(keys, System.err, System.console() != null, System.nanoTime());
  }

  /**
   * A step of {@code key} took {@code seconds} last time (an earlier run's): the estimate uses it
   * until a step of that key runs now. Counts nothing.
   */
  public void expect(String key, double seconds) {
    expected.put(key, seconds);
  }

  /** A step of {@code key} took {@code seconds}; counts it without printing. */
  public void record(String key, double seconds) {
    lastSeconds.put(key, seconds);
    sumSeconds += seconds;
    runs++;
    done = Math.min(keys.size(), done + 1);
  }

  /** Records a step and prints the status: {@code [k/n] what | elapsed ..., left ~...}. */
  public void step(String key, double seconds, String what) {
    record(key, seconds);
    print(status(what, System.nanoTime(), 0));
  }

  /** Skips steps that will never run (a run that ended early). */
  public void skip(int n) {
    done = Math.min(keys.size(), done + n);
  }

  public int done() {
    return done;
  }

  public int total() {
    return keys.size();
  }

  /**
   * The estimate of the steps still to come, in seconds: per step, the last time a step of its key
   * took now, else what {@link #expect} said, else the mean of the steps so far (10 s before any
   * ran).
   */
  public double secondsLeft() {
    double mean = runs == 0 ? 10 : sumSeconds / runs;
    double left = 0;
    for (int i = done; i < keys.size(); i++) {
      String k = keys.get(i);
      left += lastSeconds.getOrDefault(k, expected.getOrDefault(k, mean));
    }
    return left;
  }

  /** The time each key's last step took in this run (to {@link #expect} them in the next). */
  public Map<String, Double> lastSeconds() {
    return Map.copyOf(lastSeconds);
  }

  /** The status line after the last step, {@code extraSeconds} added to the time left. */
  public String status(String what, long nowNanos, double extraSeconds) {
    int width = String.valueOf(keys.size()).length();
    return String.format(
        Locale.ROOT,
        "[%" + width + "d/%d] %s | elapsed %s, left ~%s",
        done,
        keys.size(),
        what,
        clock((nowNanos - startNanos) / 1e9),
        clock(secondsLeft() + extraSeconds));
  }

  /** Prints a status line: in place on a terminal, as a line of its own otherwise. */
  public void print(String line) {
    if (updating) {
      out.print("\r" + line + "\033[K");
      open = true;
    } else {
      out.println(line);
    }
    out.flush();
  }

  /** Ends the updating line (before printing results). */
  public void finish() {
    if (open) {
      out.println();
      out.flush();
      open = false;
    }
  }

  /** {@code h:mm:ss}. */
  public static String clock(double seconds) {
    long s = Math.max(0, Math.round(seconds));
    return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  }
}
