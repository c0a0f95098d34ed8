/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.launcher.JavaModuleOptions;

/**
 * Builds the command that starts one Spark application of a comparison: {@code spark-submit} of a
 * Spark distribution when there is one ({@code SPARK_HOME/bin/spark-submit}), else what that script
 * runs: {@code java ... org.apache.spark.deploy.SparkSubmit} on the jars of a Spark home (the one
 * {@code integration} makes from Maven artifacts), with Java 17's module options.
 */
final class SubmitCommand {
  static final String MAIN = "io.rdmashuffle.tpcds.Tpcds";

  private final Path sparkHome;
  private final Path sparkSubmit;
  private final String master;
  private final String driverMemory;
  private final List<String> extraSubmitArgs;
  private final Path appJar;

  /**
   * @param sparkHome a Spark home ({@code jars/}, optional {@code conf/}, {@code bin/})
   * @param sparkSubmit a spark-submit script to use, or null for the one in the Spark home, if any
   */
  SubmitCommand(
      Path sparkHome,
      Path sparkSubmit,
      String master,
      String driverMemory,
      List<String> extraSubmitArgs,
      Path appJar) {
    this.sparkHome = sparkHome;
    Path script = sparkHome == null ? null : sparkHome.resolve("bin/spark-submit");
    this.sparkSubmit =
        sparkSubmit != null
            ? sparkSubmit
            : script != null && Files.isExecutable(script) ? script : null;
    this.master = master;
    this.driverMemory = driverMemory;
    this.extraSubmitArgs = List.copyOf(extraSubmitArgs);
    this.appJar = appJar;
  }

  boolean direct() {
    return sparkSubmit == null;
  }

  /**
   * The process for one application.
   *
   * @param name the application name
   * @param conf its Spark settings
   * @param jars jars to ship with {@code --jars}
   * @param appArgs arguments of {@link #MAIN}
   */
  ProcessBuilder build(
      String name, Map<String, String> conf, List<Path> jars, List<String> appArgs) {
    List<String> cmd = new ArrayList<>();
    if (direct()) {
      if (sparkHome == null) {
        throw new IllegalArgumentException(
            "no Spark: set SPARK_HOME or pass --spark-home or --spark-submit");
      }
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx" + driverMemory);
      cmd.addAll(Arrays.asList(JavaModuleOptions.defaultModuleOptionArray()));
      String driverCp = conf.getOrDefault("spark.driver.extraClassPath", "");
      cmd.add("-cp");
      cmd.add(
          String.join(
                  File.pathSeparator,
                  sparkHome.resolve("conf").toString(),
                  sparkHome.resolve("jars").resolve("*").toString())
              + (driverCp.isBlank() ? "" : File.pathSeparator + driverCp));
      cmd.add("org.apache.spark.deploy.SparkSubmit");
    } else {
      cmd.add(sparkSubmit.toString());
      cmd.add("--driver-memory");
      cmd.add(driverMemory);
    }
    cmd.add("--master");
    cmd.add(master);
    cmd.add("--name");
    cmd.add(name);
    cmd.add("--class");
    cmd.add(MAIN);
    for (Map.Entry<String, String> e : conf.entrySet()) {
      cmd.add("--conf");
      cmd.add(e.getKey() + "=" + e.getValue());
    }
    if (!jars.isEmpty()) {
      cmd.add("--jars");
      cmd.add(String.join(",", jars.stream().map(Path::toString).toList()));
    }
    cmd.addAll(extraSubmitArgs);
    cmd.add(appJar.toString());
    cmd.addAll(appArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> env = pb.environment();
    if (sparkHome != null) {
      env.put("SPARK_HOME", sparkHome.toString());
      if (Files.isDirectory(sparkHome.resolve("conf")) && !env.containsKey("SPARK_CONF_DIR")) {
        env.put("SPARK_CONF_DIR", sparkHome.resolve("conf").toString());
      }
    }
    // local-cluster workers start executors from the Spark home (FACTS: Spark local-cluster)
    env.putIfAbsent("SPARK_SCALA_VERSION", "2.13");
    if (master.startsWith("local")) {
      env.putIfAbsent("SPARK_LOCAL_IP", "127.0.0.1");
    }
    return pb;
  }
}
