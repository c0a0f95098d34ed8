/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import io.rdmashuffle.tpcds.report.Canvas.Anchor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.DoubleFunction;

/**
 * The report's charts: one row per query, drawn on a {@link Canvas} so the same code makes the SVG
 * of the HTML page and the PNG copy. {@link Bars} is also what {@code bin/rdma-shuffle qualify}'s
 * report draws (one row per message size).
 */
public abstract class Chart {
  public static final String STOCK_COLOR = "#7f8c8d";
  public static final String OURS_COLOR = "#2e86c1";
  static final String BETTER = "#27ae60";
  static final String WORSE = "#c0392b";
  static final String INK = "#222222";
  static final String GRID = "#dddddd";

  static final int WIDTH = 960;
  static final int LEFT = 110;
  static final int RIGHT = 40;
  static final int TOP = 70;
  static final int BOTTOM = 36;

  final String title;
  final List<String> labels;

  Chart(String title, List<String> labels) {
    this.title = title;
    this.labels = labels;
  }

  abstract int rowHeight();

  abstract void drawPlot(Canvas c, double x0, double x1);

  int width() {
    return WIDTH;
  }

  int height() {
    return TOP + Math.max(1, labels.size()) * rowHeight() + BOTTOM;
  }

  final void draw(Canvas c) {
    c.text(LEFT, 22, title, 15, Anchor.START, INK, true);
    for (int i = 0; i < labels.size(); i++) {
      c.text(
          LEFT - 8,
          TOP + i * rowHeight() + rowHeight() * 0.5 + 4,
          labels.get(i),
          11,
          Anchor.END,
          INK,
          false);
    }
    drawPlot(c, LEFT, width() - RIGHT);
  }

  public String svg() {
    SvgCanvas c = new SvgCanvas(width(), height());
    draw(c);
    return c.toString();
  }

  public void png(Path file) throws IOException {
    try (PngCanvas c = new PngCanvas(width(), height())) {
      draw(c);
      c.write(file);
    }
  }

  /** Vertical grid lines with labels at round values, top and bottom. */
  void grid(Canvas c, double[] ticks, DoubleFunction<Double> xOf, DoubleFunction<String> label) {
    double bottom = TOP + labels.size() * rowHeight();
    for (double t : ticks) {
      double x = xOf.apply(t);
      c.line(x, TOP - 4, x, bottom, GRID, 1);
      c.text(x, TOP - 8, label.apply(t), 10, Anchor.MIDDLE, INK, false);
      c.text(x, bottom + 14, label.apply(t), 10, Anchor.MIDDLE, INK, false);
    }
  }

  /** Round tick values from 0 to at least {@code max}, about five of them. */
  static double[] ticks(double max) {
    if (!(max > 0)) {
      return new double[] {0, 1};
    }
    double raw = max / 5;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step =
        raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    int n = (int) Math.ceil(max / step);
    double[] t = new double[n + 1];
    for (int i = 0; i <= n; i++) {
      t[i] = i * step;
    }
    return t;
  }

  /** Horizontal bars, one group per query, one bar per series (stock and ours side by side). */
  public static final class Bars extends Chart {
    private final List<String> seriesNames;
    private final List<String> colors;
    private final List<double[]> series;
    private final DoubleFunction<String> format;

    public Bars(
        String title,
        List<String> labels,
        List<String> seriesNames,
        List<String> colors,
        List<double[]> series,
        DoubleFunction<String> format) {
      super(title, labels);
      this.seriesNames = seriesNames;
      this.colors = colors;
      this.series = series;
      this.format = format;
    }

    @Override
    int rowHeight() {
      return series.size() * 6 + 6;
    }

    @Override
    void drawPlot(Canvas c, double x0, double x1) {
      double max = 0;
      for (double[] s : series) {
        for (double v : s) {
          if (v > max) {
            max = v;
          }
        }
      }
      double[] ticks = ticks(max);
      double top = ticks[ticks.length - 1];
      DoubleFunction<Double> xOf = v -> x0 + (x1 - x0) * (v / top);
      grid(c, ticks, xOf, format);
      for (int i = 0; i < labels.size(); i++) {
        double y = TOP + i * rowHeight() + 3;
        for (int s = 0; s < series.size(); s++) {
          double v = series.get(s)[i];
          if (v > 0) {
            c.rect(x0, y + s * 6, xOf.apply(v) - x0, 5, colors.get(s));
          }
        }
      }
      double lx = x0;
      for (int s = 0; s < seriesNames.size(); s++) {
        c.rect(lx, 32, 12, 10, colors.get(s));
        c.text(lx + 16, 41, seriesNames.get(s), 11, Anchor.START, INK, false);
        lx += 150;
      }
    }
  }

  /**
   * ours / stock per query on a log scale around 1: green bars to the left (ours faster), red to
   * the right, clipped at a quarter and four times.
   */
  static final class Ratios extends Chart {
    static final double LIMIT = 4;
    private final double[] ratios;

    Ratios(String title, List<String> labels, double[] ratios) {
      super(title, labels);
      this.ratios = ratios;
    }

    @Override
    int rowHeight() {
      return 12;
    }

    @Override
    void drawPlot(Canvas c, double x0, double x1) {
      double mid = (x0 + x1) / 2;
      double half = (x1 - x0) / 2;
      double span = Math.log(LIMIT);
      DoubleFunction<Double> xOf = r -> mid + half * Math.max(-1, Math.min(1, Math.log(r) / span));
      grid(c, new double[] {0.25, 0.5, 0.8, 1, 1.25, 2, 4}, xOf, t -> fmt(t) + "x");
      for (int i = 0; i < labels.size(); i++) {
        double r = ratios[i];
        if (!(r > 0)) {
          continue;
        }
        double x = xOf.apply(r);
        double y = TOP + i * rowHeight() + 2;
        c.rect(
            Math.min(mid, x),
            y,
            Math.max(1, Math.abs(x - mid)),
            rowHeight() - 4,
            r <= 1 ? BETTER : WORSE);
      }
      c.line(mid, TOP - 4, mid, TOP + labels.size() * rowHeight(), INK, 1);
      c.text(x0, 42, "<- ours faster", 11, Anchor.START, BETTER, false);
      c.text(x1, 42, "ours slower ->", 11, Anchor.END, WORSE, false);
    }

    private static String fmt(double t) {
      return t == Math.rint(t) ? String.valueOf((long) t) : String.valueOf(t);
    }
  }
}
