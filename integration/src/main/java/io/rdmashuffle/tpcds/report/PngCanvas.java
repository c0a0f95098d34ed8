/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/**
 * A {@link Canvas} that paints a PNG with Java2D. Needs {@code java.awt.headless=true} on a machine
 * without a display (the report sets it) and a font (Debian: {@code fontconfig}, {@code
 * fonts-dejavu-core}).
 */
final class PngCanvas implements Canvas, AutoCloseable {
  private final BufferedImage image;
  private final Graphics2D g;

  PngCanvas(int width, int height) {
    image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(
        RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
  }

  @Override
  public void rect(double x, double y, double w, double h, String fill) {
    g.setColor(Color.decode(fill));
    g.fill(new Rectangle2D.Double(x, y, w, h));
  }

  @Override
  public void line(double x1, double y1, double x2, double y2, String stroke, double width) {
    g.setColor(Color.decode(stroke));
    g.setStroke(new BasicStroke((float) width));
    g.draw(new Line2D.Double(x1, y1, x2, y2));
  }

  @Override
  public void text(
      double x, double y, String text, double size, Anchor anchor, String fill, boolean bold) {
    g.setColor(Color.decode(fill));
    g.setFont(new Font(Font.SANS_SERIF, bold ? Font.BOLD : Font.PLAIN, (int) Math.round(size)));
    double w = g.getFontMetrics().stringWidth(text);
    double left =
        switch (anchor) {
          case START -> x;
          case MIDDLE -> x - w / 2;
          case END -> x - w;
        };
    g.drawString(text, (float) left, (float) y);
  }

  void write(Path file) throws IOException {
    if (!ImageIO.write(image, "png", file.toFile())) {
      throw new IOException("no PNG writer in this JDK");
    }
  }

  @Override
  public void close() {
    g.dispose();
  }
}
