/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One side of a comparison: a shuffle manager class, the jar it comes in (none for Spark's own),
 * and settings for that side only. "Ours" is any shuffle manager plus a jar: stock against stock
 * ({@code sort} on both sides) checks the runner itself.
 *
 * @param name {@code stock} or {@code ours}
 * @param shuffleManager value of {@code spark.shuffle.manager}
 * @param jar the plugin jar, put on the driver's and executors' class path and shipped with {@code
 *     --jars}; empty for Spark's own managers
 * @param conf settings for this side (on top of those for both)
 */
public record Side(
    String name, String shuffleManager, Optional<Path> jar, Map<String, String> conf) {
  /** The plugin's manager, the default of the "ours" side. */
  public static final String RDMA_MANAGER = "org.apache.spark.shuffle.rdma.RdmaShuffleManager";

  /** Where the shuffle-manager module builds the plugin jar, relative to the repository root. */
  public static final String RDMA_JAR_GLOB = "shuffle-manager/target/rdma-shuffle-spark_2.13-*.jar";

  private static final Set<String> BUILT_IN =
      Set.of("sort", "tungsten-sort", "org.apache.spark.shuffle.sort.SortShuffleManager");

  public Side {
    conf = new LinkedHashMap<>(conf);
  }

  /** Spark's own shuffle managers need no jar. */
  public static boolean builtIn(String shuffleManager) {
    return BUILT_IN.contains(shuffleManager);
  }

  /**
   * A side, its jar found by glob when the manager is not Spark's own.
   *
   * @param jarGlob a path whose file name may hold a glob ({@code
   *     target/rdma-shuffle-spark_2.13-*.jar}); sources, javadoc, tests and shade leftovers ({@code
   *     original-*}) never match
   */
  public static Side of(
      String name, String shuffleManager, String jarGlob, Map<String, String> conf)
      throws IOException {
    if (builtIn(shuffleManager)) {
      return new Side(name, shuffleManager, Optional.empty(), conf);
    }
    if (jarGlob == null || jarGlob.isBlank()) {
      throw new IllegalArgumentException(
          name
              + ": shuffle manager "
              + shuffleManager
              + " is not Spark's own, so it needs a jar (--"
              + name
              + "-jar)");
    }
    Path jar =
        findJar(jarGlob)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        name
                            + ": no jar matches "
                            + jarGlob
                            + " (build the plugin: mvn -DskipTests package; or run stock "
                            + "against stock with --"
                            + name
                            + "-class sort)"));
    return new Side(name, shuffleManager, Optional.of(jar), conf);
  }

  /** The newest jar matching the glob, if any. */
  static Optional<Path> findJar(String glob) throws IOException {
    Path pattern = Paths.get(glob);
    Path dir = pattern.getParent() == null ? Paths.get(".") : pattern.getParent();
    String name = pattern.getFileName().toString();
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + name);
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path p : s) {
        String n = p.getFileName().toString();
        if (m.matches(p.getFileName())
            && Files.isRegularFile(p)
            && !n.startsWith("original-")
            && !n.endsWith("-sources.jar")
            && !n.endsWith("-javadoc.jar")
            && !n.endsWith("-tests.jar")) {
          found.add(p.toAbsolutePath().normalize());
        }
      }
    }
    return found.stream().max(Comparator.comparingLong(p -> p.toFile().lastModified()));
  }

  /**
   * The Spark settings of this side: its manager, its jar on both class paths, its own settings.
   */
  public Map<String, String> sparkConf(Map<String, String> common) {
    Map<String, String> out = new LinkedHashMap<>(common);
    out.put("spark.shuffle.manager", shuffleManager);
    jar.ifPresent(
        j -> {
          append(out, "spark.driver.extraClassPath", j.toString());
          append(out, "spark.executor.extraClassPath", j.toString());
        });
    out.putAll(conf);
    return out;
  }

  private static void append(Map<String, String> conf, String key, String entry) {
    String old = conf.get(key);
    conf.put(key, old == null || old.isBlank() ? entry : old + ":" + entry);
  }

  /** One line for the report header. */
  public String describe() {
    StringBuilder b = new StringBuilder(shuffleManager);
    jar.ifPresent(j -> b.append(" from ").append(j.getFileName()));
    if (!conf.isEmpty()) {
      b.append("; ").append(conf);
    }
    return b.toString();
  }
}
