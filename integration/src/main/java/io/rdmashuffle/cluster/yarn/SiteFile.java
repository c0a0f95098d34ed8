/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.yarn;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Writes a Hadoop configuration file ({@code core-site.xml}, ...) from ordered properties. */
final class SiteFile {
  private SiteFile() {}

  static void write(Path file, String comment, Map<String, String> properties) {
    StringBuilder b =
        new StringBuilder("<?xml version=\"1.0\"?>\n<!-- ")
            .append(escape(comment).replace("--", "- -"))
            .append(" -->\n<configuration>\n");
    properties.forEach(
        (k, v) ->
            b.append("  <property><name>")
                .append(escape(k))
                .append("</name><value>")
                .append(escape(v))
                .append("</value></property>\n"));
    b.append("</configuration>\n");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, b);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
