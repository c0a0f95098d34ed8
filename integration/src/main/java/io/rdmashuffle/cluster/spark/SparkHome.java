/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.spark;

import io.rdmashuffle.cluster.ClusterSite;
import io.rdmashuffle.cluster.Launcher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the harness runs Spark's JVMs: the Spark home made of Maven artifacts (its {@code jars/}),
 * the cluster's Spark configuration folder (logging at INFO into each process's log), the
 * environment every Spark process needs from such a home, and Java 17's module options as Spark's
 * launcher gives them.
 */
public final class SparkHome {
  /** What Spark's launcher adds to its JVMs on Java 17 (JavaModuleOptions). */
  public static final List<String> MODULE_OPTIONS =
      List.of(
          "-XX:+IgnoreUnrecognizedVMOptions",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
          "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
          "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
          "-Djdk.reflect.useDirectMethodHandle=false",
          "-Dio.netty.tryReflectionSetAccessible=true");

  /** Small daemons start and run faster on two shared cores. */
  static final List<String> SMALL_JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private static final String LOG4J2 =
      """
      # Spark daemons, executors and drivers of the cluster harness: INFO into each process's log
      rootLogger.level = info
      rootLogger.appenderRef.stderr.ref = console
      appender.console.type = Console
      appender.console.name = console
      appender.console.target = SYSTEM_ERR
      appender.console.layout.type = PatternLayout
      appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex
      logger.nativeio.name = org.apache.hadoop.util.NativeCodeLoader
      logger.nativeio.level = error
      logger.jetty.name = org.sparkproject.jetty
      logger.jetty.level = warn
      """;

  private final Path home;
  private final Path conf;

  private SparkHome(Path home, Path conf) {
    this.home = home;
    this.conf = conf;
  }

  static SparkHome of(ClusterSite c) {
    return of(c, c.paths().sparkHome());
  }

  /** The Spark home at {@code home} with the cluster's configuration folder. */
  static SparkHome of(ClusterSite c, Path home) {
    Path conf = c.work().resolve("spark-conf");
    try {
      Files.createDirectories(conf);
      Files.writeString(conf.resolve("log4j2.properties"), LOG4J2);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new SparkHome(home, conf);
  }

  Path jars() {
    return home.resolve("jars");
  }

  /** {@code java <options> -cp <conf>:<jars>/* mainClass}. */
  List<String> java(String heap, List<String> extraOptions, String mainClass) {
    return java(heap, extraOptions, "", mainClass);
  }

  /** {@code java <options> -cp <conf>:<jars>/*[:extraClassPath] mainClass}. */
  List<String> java(
      String heap, List<String> extraOptions, String extraClassPath, String mainClass) {
    List<String> c = new ArrayList<>(List.of(Launcher.java(), "-Xmx" + heap));
    c.addAll(MODULE_OPTIONS);
    c.addAll(extraOptions);
    c.add("-cp");
    c.add(
        conf
            + ":"
            + home.resolve("jars")
            + "/*"
            + (extraClassPath.isBlank() ? "" : ":" + extraClassPath));
    c.add(mainClass);
    return c;
  }

  /** The environment of a Spark process at {@code address}. */
  Map<String, String> env(String address) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("SPARK_HOME", home.toString());
    env.put("SPARK_CONF_DIR", conf.toString());
    // a Spark home made of Maven artifacts has no RELEASE file nor build folders
    env.put("SPARK_SCALA_VERSION", "2.13");
    env.put("SPARK_LOCAL_IP", address);
    env.put("JAVA_HOME", System.getProperty("java.home"));
    return env;
  }
}
