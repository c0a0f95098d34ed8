/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import io.rdmashuffle.cluster.net.Teardown;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

/**
 * Starts the cluster's processes: in their place ({@link Place#wrap}), in a session of their own
 * ({@code setsid}: a Ctrl-C meant for the harness doesn't reach them, the harness stops them), with
 * the harness's environment mark ({@link Teardown#MARK}) that finds them and their children after a
 * crash, without the engine variables of the caller's environment, and with stdout and stderr
 * appended to their log.
 */
public final class Launcher {
  /** Variables of the caller's environment that would mislead a daemon or client. */
  private static final List<String> DROPPED_PREFIXES =
      List.of("SPARK_", "HADOOP_", "YARN_", "MAPRED_", "PYSPARK_");

  private Launcher() {}

  public static Process start(Place place, ProcessSpec spec, String clusterName) {
    List<String> cmd = new java.util.ArrayList<>(List.of("setsid"));
    cmd.addAll(place.wrap(spec.argv()));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> env = pb.environment();
    env.keySet()
        .removeIf(
            k ->
                k.equals("CLASSPATH")
                    || k.equals("JAVA_TOOL_OPTIONS")
                    || DROPPED_PREFIXES.stream().anyMatch(k::startsWith));
    env.putAll(spec.env());
    env.put(Teardown.MARK, clusterName);
    try {
      Files.createDirectories(spec.log().getParent());
      Files.writeString(
          spec.log(),
          "==== "
              + LocalDateTime.now()
              + " "
              + place.name()
              + " "
              + spec.name()
              + ": "
              + String.join(" ", spec.argv())
              + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      pb.redirectErrorStream(true);
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(spec.log().toFile()));
      pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
      return pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + spec.name() + " on " + place.name(), e);
    }
  }

  /** The java of this JVM, for every JVM the harness starts. */
  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
