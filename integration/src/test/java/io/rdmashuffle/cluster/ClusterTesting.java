/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmashuffle.cluster.net.Root;
import io.rdmashuffle.cluster.spark.SparkApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What the cluster harness's tests share: the root check, the paths, a TCP sink to probe with, the
 * executors' metrics of a Spark application.
 */
final class ClusterTesting {
  private ClusterTesting() {}

  /** Skips the test class, saying why, when this JVM is not root. */
  static void assumeRoot() {
    assumeTrue(Root.isRoot(), Root.NEEDED);
  }

  static ClusterPaths paths() {
    return ClusterPaths.fromSystemProperties();
  }

  /**
   * Starts the cluster once no other harness cluster runs on this machine (one at a time; on a
   * shared machine another test's may be running), waiting at most 20 minutes.
   */
  static Cluster startWhenFree(ClusterSpec spec) throws InterruptedException {
    long deadline = System.nanoTime() + 20 * 60_000_000_000L;
    while (true) {
      try {
        return Cluster.start(spec, paths());
      } catch (IllegalStateException e) {
        if (!String.valueOf(e.getMessage()).startsWith("a harness cluster is running")
            || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(5_000);
      }
    }
  }

  /** The test classes (for {@link TcpSink} in a host). */
  static Path testClasses() {
    return Path.of(System.getProperty("cluster.testClasses", "target/test-classes"));
  }

  /** A {@link TcpSink} as a daemon of {@code host}, listening on {@code port}. */
  static Daemon startSink(Host host, int port) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Launcher.java(),
                "-Xmx16m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                testClasses().toString(),
                TcpSink.class.getName(),
                Integer.toString(port)));
    return host.start(
        new ProcessSpec("tcp-sink-" + port, cmd, Map.of(), host.log("tcp-sink-" + port)));
  }

  /**
   * Whether {@code from} can open a TCP connection to {@code address:port} within 3 s: 0 it
   * connected, 1 it was refused (reachable, nothing listens), 124 it timed out (unreachable).
   */
  static int connect(Place from, String address, int port) {
    List<String> cmd =
        List.of("timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/" + address + "/" + port);
    return io.rdmashuffle.cluster.net.Shell.exec(from.wrap(cmd), 30).exitCode();
  }

  /** Memory of the cluster's daemons now, for the test's output. */
  static String memory(Cluster c) {
    StringBuilder b = new StringBuilder();
    for (Host h : c.hosts()) {
      for (Daemon d : h.daemons()) {
        d.residentBytes()
            .ifPresent(r -> b.append(String.format("%s/%s %d MiB; ", h.name(), d.name(), r >> 20)));
      }
    }
    return b.toString();
  }

  /**
   * {@code app} with its executors' metrics written by Spark's CSV sink into {@code dir} every
   * second, read back with {@link #executorMetrics}. Creates {@code dir}.
   */
  static SparkApplication withExecutorMetrics(SparkApplication app, Path dir) throws IOException {
    Files.createDirectories(dir);
    return app.conf(
            "spark.metrics.conf.executor.sink.csv.class", "org.apache.spark.metrics.sink.CsvSink")
        .conf("spark.metrics.conf.executor.sink.csv.period", "1")
        .conf("spark.metrics.conf.executor.sink.csv.unit", "seconds")
        .conf("spark.metrics.conf.executor.sink.csv.directory", dir.toString());
  }

  /**
   * The last value of every {@code rdmaShuffle} gauge per executor, from the CSV sink's files of
   * {@link #withExecutorMetrics} ({@code <app id>.<executor id>.rdmaShuffle.<name>.csv}, lines
   * {@code t,value}).
   */
  static Map<String, Map<String, Long>> executorMetrics(Path dir) throws IOException {
    Map<String, Map<String, Long>> m = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        int at = name.indexOf(".rdmaShuffle.");
        if (at < 0 || !name.endsWith(".csv")) {
          continue;
        }
        String executor = name.substring(name.lastIndexOf('.', at - 1) + 1, at);
        String gauge = name.substring(at + ".rdmaShuffle.".length(), name.length() - 4);
        List<String> lines = Files.readAllLines(f);
        String last = lines.get(lines.size() - 1);
        String value = last.substring(last.indexOf(',') + 1);
        if (value.matches("-?\\d+")) {
          m.computeIfAbsent(executor, k -> new HashMap<>()).put(gauge, Long.parseLong(value));
        }
      }
    }
    return m;
  }
}
