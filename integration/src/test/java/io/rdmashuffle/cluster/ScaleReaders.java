/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import io.rdmashuffle.bench.scale.ReaderResults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The reading hosts of a scale test: one {@code ScaleReader} process per host (the engine-neutral
 * reading core with nothing of Spark, {@code io.rdmashuffle.bench.scale}), each running its share
 * of the reduce tasks of a manifest, all started at once: each brings its runtime up and says so,
 * and they read when every one is ready.
 */
final class ScaleReaders {
  private ScaleReaders() {}

  /** How the readers read. */
  record Options(
      int slotsPerHost, int width, String window, List<Path> verify, long timeoutSeconds) {}

  /**
   * Runs the readers on {@code hosts} over {@code manifest}, their work under {@code dir}; returns
   * each host's results. {@code whileReading} runs once every reader is up, just before they read.
   */
  static List<ReaderResults> run(
      Cluster cluster, List<Host> hosts, Path manifest, Path dir, Options o, Runnable whileReading)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path go = dir.resolve("go");
    Files.deleteIfExists(go);
    ClusterPaths paths = cluster.paths();
    String cp =
        paths.sparkAppJar()
            + ":"
            + paths.sparkPluginJar()
            + ":"
            + paths.sparkHome().resolve("jars")
            + "/*";
    List<Process> processes = new ArrayList<>();
    List<Path> ready = new ArrayList<>();
    List<Path> results = new ArrayList<>();
    try {
      for (int i = 0; i < hosts.size(); i++) {
        Host h = hosts.get(i);
        Path r = dir.resolve(h.name() + ".ready");
        Path out = dir.resolve(h.name() + ".properties");
        Files.deleteIfExists(r);
        Files.deleteIfExists(out);
        ready.add(r);
        results.add(out);
        List<String> cmd =
            new ArrayList<>(
                List.of(
                    Launcher.java(),
                    "-Xmx384m",
                    "-XX:MaxDirectMemorySize=256m",
                    "-XX:+UseSerialGC",
                    "--add-exports",
                    "java.base/sun.nio.ch=ALL-UNNAMED",
                    "-Dlog4j2.configurationFile=" + writeLogConfig(dir),
                    "-cp",
                    cp,
                    "io.rdmashuffle.bench.scale.ScaleReader",
                    "--manifest",
                    manifest.toString(),
                    "--share",
                    i + "/" + hosts.size(),
                    "--slots",
                    Integer.toString(o.slotsPerHost()),
                    "--width",
                    Integer.toString(o.width()),
                    "--window",
                    o.window(),
                    "--host",
                    h.address(),
                    "--ready",
                    r.toString(),
                    "--go",
                    go.toString(),
                    "--out",
                    out.toString(),
                    "--set",
                    "spark.shuffle.rdma.transport=tcp"));
        if (!o.verify().isEmpty()) {
          cmd.add("--verify");
          cmd.add(String.join(",", o.verify().stream().map(Path::toString).toList()));
        }
        processes.add(
            Launcher.start(
                h,
                new ProcessSpec("scale-reader", cmd, Map.of(), h.log("scale-reader")),
                cluster.spec().name()));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
      for (int i = 0; i < hosts.size(); i++) {
        while (!Files.exists(ready.get(i))) {
          if (!processes.get(i).isAlive() || System.nanoTime() > deadline) {
            throw new IllegalStateException(
                hosts.get(i).name()
                    + "'s reader did not come up:\n"
                    + Probes.tail(hosts.get(i).log("scale-reader"), 30));
          }
          Thread.sleep(100);
        }
      }
      whileReading.run();
      Files.writeString(go, "");
      List<ReaderResults> all = new ArrayList<>();
      for (int i = 0; i < hosts.size(); i++) {
        Process p = processes.get(i);
        if (!p.waitFor(o.timeoutSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException(
              hosts.get(i).name()
                  + "'s reader still runs after "
                  + o.timeoutSeconds()
                  + " s:\n"
                  + Probes.tail(hosts.get(i).log("scale-reader"), 30));
        }
        if (!Files.exists(results.get(i))) {
          throw new IllegalStateException(
              hosts.get(i).name()
                  + "'s reader ended with "
                  + p.exitValue()
                  + " and no results:\n"
                  + Probes.tail(hosts.get(i).log("scale-reader"), 40));
        }
        all.add(ReaderResults.read(results.get(i)));
      }
      return all;
    } finally {
      for (Process p : processes) {
        p.destroyForcibly();
      }
    }
  }

  /** The readers log warnings only (their results go to their result files). */
  private static Path writeLogConfig(Path dir) throws IOException {
    Path f = dir.resolve("reader-log4j2.properties");
    Files.writeString(
        f,
        """
        rootLogger.level = warn
        rootLogger.appenderRef.stderr.ref = console
        appender.console.type = Console
        appender.console.name = console
        appender.console.target = SYSTEM_ERR
        appender.console.layout.type = PatternLayout
        appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex
        """);
    return f;
  }
}
