/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import java.util.Locale;

/** A {@link Canvas} that writes SVG text. */
final class SvgCanvas implements Canvas {
  private final StringBuilder body = new StringBuilder();
  private final int width;
  private final int height;

  SvgCanvas(int width, int height) {
    this.width = width;
    this.height = height;
  }

  @Override
  public void rect(double x, double y, double w, double h, String fill) {
    body.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
            x,
            y,
            w,
            h,
            fill));
  }

  @Override
  public void line(double x1, double y1, double x2, double y2, String stroke, double w) {
    body.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>%n",
            x1,
            y1,
            x2,
            y2,
            stroke,
            w));
  }

  @Override
  public void text(
      double x, double y, String text, double size, Anchor anchor, String fill, boolean bold) {
    String a =
        switch (anchor) {
          case START -> "start";
          case MIDDLE -> "middle";
          case END -> "end";
        };
    body.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" text-anchor=\"%s\" fill=\"%s\"%s>%s</text>%n",
            x,
            y,
            size,
            a,
            fill,
            bold ? " font-weight=\"bold\"" : "",
            Html.escape(text)));
  }

  @Override
  public String toString() {
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
        + width
        + "\" height=\""
        + height
        + "\" viewBox=\"0 0 "
        + width
        + " "
        + height
        + "\" font-family=\"sans-serif\">\n"
        + "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        + body
        + "</svg>\n";
  }
}
