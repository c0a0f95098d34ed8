/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The kernel's files a host check reads ({@code /sys}, {@code /proc}), under a root: {@code /} on a
 * host, a folder laid out the same way in tests.
 */
final class Sysfs {
  private final Path root;

  Sysfs(Path root) {
    this.root = root;
  }

  static Sysfs host() {
    return new Sysfs(Path.of("/"));
  }

  Path path(String absolute) {
    return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
  }

  /**
   * The file's first line, trimmed; empty when it can't be read (absent, or EINVAL as for an unused
   * GID's type).
   */
  String read(String absolute) {
    try {
      List<String> lines = Files.readAllLines(path(absolute), StandardCharsets.UTF_8);
      return lines.isEmpty() ? "" : lines.get(0).trim();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /** Every line of the file; empty when it can't be read. */
  List<String> lines(String absolute) {
    try {
      return Files.readAllLines(path(absolute), StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  boolean exists(String absolute) {
    return Files.exists(path(absolute));
  }

  /** The names in a folder, sorted; empty when it is absent. */
  List<String> list(String absolute) {
    List<String> names = new ArrayList<>();
    Path dir = path(absolute);
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path p : s) {
        names.add(p.getFileName().toString());
      }
    } catch (IOException e) {
      return names;
    }
    names.sort(Sysfs::natural);
    return names;
  }

  /** The last name of a symbolic link's target ({@code device/driver} -> {@code mlx5_core}). */
  String linkName(String absolute) {
    try {
      Path target = Files.readSymbolicLink(path(absolute));
      return target.getFileName().toString();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /** Numbers in numeric order ("2" before "10"), the rest as text. */
  static int natural(String a, String b) {
    if (a.matches("\\d+") && b.matches("\\d+")) {
      return Long.compare(Long.parseLong(a), Long.parseLong(b));
    }
    return a.compareTo(b);
  }
}
