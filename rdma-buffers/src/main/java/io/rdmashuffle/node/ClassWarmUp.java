/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Loads and links the classes of the reading and serving paths while a process starts, so its first
 * reduce task doesn't. A fresh executor otherwise loads, verifies and first interprets some 250 of
 * this project's classes inside its first reduce task, between reading the map statuses and its
 * first READ (and the owners inside their first locate answer and READ), at the start of a reduce
 * stage, when every task of the executor starts at once and the JIT compilers are busy. On the
 * cluster harness the warm-up takes 30-220 ms per executor; its effect on the reduce stage alone is
 * within the benchmark's spread (the READ buffers registered ahead are what measurably moved the
 * first READs earlier), so it is kept as the cheap half of readying a process ahead of its first
 * reduce task.
 *
 * <p>Classes are loaded without running their static initializers ({@code Class.forName(name,
 * false, loader)}), then linked, which verifies them, by asking for their declared methods. A class
 * that can't be linked here (a dependency missing on this class path) is skipped: its first use
 * reports the same error it always would. Nothing of this project's state changes.
 */
public final class ClassWarmUp {
  /**
   * The packages of the reading and serving paths (as resource paths, {@code /}-separated), less
   * the verbs transport's, whose classes load when that transport starts.
   */
  public static final List<String> PATHS =
      List.of(
          "io/rdmashuffle/fetch/",
          "io/rdmashuffle/mapoutput/",
          "io/rdmashuffle/memory/",
          "io/rdmashuffle/serve/",
          "io/rdmashuffle/transport/");

  private static final String EXCLUDED = "io/rdmashuffle/transport/verbs/";

  private ClassWarmUp() {}

  /** What a warm-up did: classes linked, classes skipped, and how long it took. */
  public record Outcome(int linked, int skipped, long nanos) {}

  /**
   * Loads and links the classes of this project's reading and serving paths ({@link #PATHS}) from
   * the jar or directory this class came from.
   */
  public static Outcome readingAndServing() {
    return load(ClassWarmUp.class, PATHS, List.of(EXCLUDED));
  }

  /**
   * Loads and links every class under {@code paths} (and not under {@code excluded}) of the jar or
   * directory {@code anchor} came from, through {@code anchor}'s class loader.
   */
  public static Outcome load(Class<?> anchor, List<String> paths, List<String> excluded) {
    long t0 = System.nanoTime();
    int linked = 0;
    int skipped = 0;
    ClassLoader loader = anchor.getClassLoader();
    for (String name : classNames(anchor, paths, excluded)) {
      try {
        Class.forName(name, false, loader).getDeclaredMethods();
        linked++;
      } catch (LinkageError | ClassNotFoundException | SecurityException e) {
        skipped++;
      }
    }
    return new Outcome(linked, skipped, System.nanoTime() - t0);
  }

  /**
   * The binary names of the classes under {@code paths} and not under {@code excluded} in the jar
   * or directory {@code anchor} came from; empty when it came from neither or can't be read.
   */
  static List<String> classNames(Class<?> anchor, List<String> paths, List<String> excluded) {
    CodeSource source = anchor.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return List.of();
    }
    try {
      return classNames(Path.of(source.getLocation().toURI()), paths, excluded);
    } catch (URISyntaxException | IllegalArgumentException | FileSystemNotFoundException e) {
      return List.of(); // not a file: nothing to list
    }
  }

  /**
   * The binary names of the classes under {@code paths} and not under {@code excluded} in the jar
   * or directory {@code location}, sorted; empty when it is neither or can't be read.
   */
  static List<String> classNames(Path location, List<String> paths, List<String> excluded) {
    List<String> resources = new ArrayList<>();
    try {
      if (Files.isDirectory(location)) {
        try (Stream<Path> s = Files.walk(location)) {
          s.filter(Files::isRegularFile)
              .map(p -> location.relativize(p).toString().replace('\\', '/'))
              .forEach(resources::add);
        }
      } else if (Files.isRegularFile(location)) {
        try (JarFile jar = new JarFile(location.toFile())) {
          for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
            resources.add(e.nextElement().getName());
          }
        }
      }
    } catch (IOException e) {
      return List.of(); // nothing to warm: every class still loads when first used
    }
    List<String> names = new ArrayList<>();
    for (String r : resources) {
      if (r.endsWith(".class")
          && !r.endsWith("package-info.class")
          && paths.stream().anyMatch(r::startsWith)
          && excluded.stream().noneMatch(r::startsWith)) {
        names.add(r.substring(0, r.length() - ".class".length()).replace('/', '.'));
      }
    }
    names.sort(null);
    return names;
  }
}
