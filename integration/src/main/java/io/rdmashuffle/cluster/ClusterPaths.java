/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the cluster's software and work live: the Spark home of standalone applications, the Spark
 * home of applications on YARN (with spark-yarn), the Hadoop jars (all made of Maven artifacts by
 * the build; Spark's and Hadoop's kept apart because they clash), the two plugin jars, the jar of
 * the harness's MapReduce jobs, the jar of its Spark applications, and the folder the clusters work
 * in. Read from system properties {@code cluster.*}, which the integration module's pom (for tests)
 * and {@code integration/bin/cluster} (for people) set.
 */
public record ClusterPaths(
    Path sparkHome,
    Path sparkYarnHome,
    Path hadoopJars,
    Path sparkPluginJar,
    Path hadoopPluginJar,
    Path hadoopJobsJar,
    Path sparkAppJar,
    Path workRoot) {

  public static ClusterPaths fromSystemProperties() {
    return new ClusterPaths(
        dir("cluster.sparkHome"),
        dir("cluster.sparkYarnHome"),
        dir("cluster.hadoopHome").resolve("share/hadoop/common/lib"),
        file("cluster.sparkPluginJar"),
        file("cluster.hadoopPluginJar"),
        file("cluster.hadoopJobsJar"),
        file("cluster.sparkAppJar"),
        Path.of(property("cluster.workRoot")));
  }

  /** The same software, another work root. */
  public ClusterPaths withWorkRoot(Path root) {
    return new ClusterPaths(
        sparkHome,
        sparkYarnHome,
        hadoopJars,
        sparkPluginJar,
        hadoopPluginJar,
        hadoopJobsJar,
        sparkAppJar,
        root);
  }

  private static String property(String name) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(
          "system property "
              + name
              + " is not set (run through"
              + " Maven, `mvn -pl integration -am verify`, or integration/bin/cluster)");
    }
    return v;
  }

  private static Path dir(String name) {
    Path p = Path.of(property(name));
    if (!Files.isDirectory(p)) {
      throw new IllegalStateException(
          name
              + "="
              + p
              + ": no such folder; build it with"
              + " `mvn -B -DskipTests -pl integration -am package`");
    }
    return p;
  }

  private static Path file(String name) {
    Path p = Path.of(property(name));
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException(
          name
              + "="
              + p
              + ": no such file; build it with"
              + " `mvn -B -DskipTests -pl integration -am package`");
    }
    return p;
  }
}
