/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

/**
 * What a chart draws on: the three primitives both renderings support, so one drawing code makes
 * the SVG embedded in the HTML report and the PNG copy. Coordinates in pixels, origin top left;
 * colours as {@code #rrggbb}.
 */
interface Canvas {
  /** Text anchor: where (x, y) sits on the baseline of the text. */
  enum Anchor {
    START,
    MIDDLE,
    END
  }

  void rect(double x, double y, double w, double h, String fill);

  void line(double x1, double y1, double x2, double y2, String stroke, double width);

  void text(double x, double y, String text, double size, Anchor anchor, String fill, boolean bold);
}
