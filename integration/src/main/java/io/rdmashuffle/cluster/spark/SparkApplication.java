/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.spark;

import io.rdmashuffle.cluster.ClusterSite;
import io.rdmashuffle.cluster.Place;
import io.rdmashuffle.cluster.Probes;
import io.rdmashuffle.cluster.ProcessSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One {@code spark-submit} of an application to the cluster, in client mode: the driver runs where
 * it is submitted (the root namespace by default, or a host), what a distribution's {@code
 * bin/spark-submit} runs ({@code org.apache.spark.deploy.SparkSubmit} on the Spark home's jars). A
 * builder; {@link #run} submits and waits.
 */
public final class SparkApplication {
  private final ClusterSite cluster;
  private final SparkHome home;
  private final String name;
  private final String mainClass;
  private final Map<String, String> conf = new LinkedHashMap<>();
  private final Map<String, String> env = new LinkedHashMap<>();

  /** Class path entries of the driver JVM before the driver's extra class path. */
  private String launcherClassPath = "";

  private final List<String> args = new ArrayList<>();
  private String master;
  private Place place;
  private Path appJar;
  private String driverMemory = "512m";
  private String user;

  SparkApplication(ClusterSite cluster, SparkHome home, String name, String mainClass) {
    this.cluster = cluster;
    this.home = home;
    this.name = name;
    this.mainClass = mainClass;
    this.place = cluster.edge();
    this.appJar = cluster.paths().sparkAppJar();
  }

  /**
   * An application for the cluster's YARN ({@code --master yarn}, client mode) with the Spark home
   * that has spark-yarn: the clients' Hadoop configuration, Spark's jars taken from that home on
   * every host ({@code spark.yarn.jars=local:...}, the hosts share the file system), a small AM.
   * Executors: set {@code spark.executor.instances} and their memory. {@code clientEnv} and {@code
   * clientConf} are the YARN clients' environment and Hadoop configuration folder.
   */
  public static SparkApplication onYarn(
      ClusterSite cluster,
      Map<String, String> clientEnv,
      Path clientConf,
      String name,
      String mainClass) {
    SparkHome home = SparkHome.of(cluster, cluster.paths().sparkYarnHome());
    SparkApplication a =
        new SparkApplication(cluster, home, name, mainClass)
            .master("yarn")
            .conf("spark.yarn.jars", "local:" + home.jars() + "/*")
            .conf("spark.yarn.am.memory", "384m");
    a.env.putAll(clientEnv);
    if (cluster.spec().multiUser()) {
      // the default, the user's home on the file system, does not exist for the job users
      a.conf("spark.yarn.stagingDir", cluster.shared().resolve("spark-staging").toString());
    }
    // bin/spark-submit's launcher puts HADOOP_CONF_DIR on the driver's class path: that is where
    // the YARN client finds yarn-site.xml
    a.launcherClassPath = clientConf.toString();
    return a;
  }

  public SparkApplication master(String url) {
    master = url;
    return this;
  }

  /** Where the driver runs: the root namespace (default) or a host. */
  public SparkApplication from(Place p) {
    place = p;
    return this;
  }

  public SparkApplication conf(String key, String value) {
    conf.put(key, value);
    return this;
  }

  /** rdma-shuffle as the user guide says: the plugin jar on both class paths, the manager class. */
  public SparkApplication withRdmaShuffle() {
    String jar = cluster.paths().sparkPluginJar().toString();
    return conf("spark.driver.extraClassPath", jar)
        .conf("spark.executor.extraClassPath", jar)
        .conf("spark.shuffle.manager", "org.apache.spark.shuffle.rdma.RdmaShuffleManager");
  }

  public SparkApplication appJar(Path jar) {
    appJar = jar;
    return this;
  }

  public SparkApplication args(String... a) {
    args.addAll(List.of(a));
    return this;
  }

  /** Submitted by {@code user} (multi-user mode: the driver runs as that user). */
  public SparkApplication as(String user) {
    this.user = user;
    return this;
  }

  public SparkApplication driverMemory(String m) {
    driverMemory = m;
    return this;
  }

  /** What ran and how it ended. */
  public record Outcome(String name, int exitCode, Path log, double seconds) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** The end of the driver's log, for assertion messages. */
    public String tail() {
      return Probes.tail(log, 40);
    }
  }

  /** Submits, waits at most {@code timeoutSeconds}, kills the driver past it (exit 124). */
  public Outcome run(long timeoutSeconds) {
    // what bin/spark-submit's launcher does for a client-mode driver: the driver's extra class
    // path and Java options go on the JVM it starts, they can't be set once it runs
    List<String> options =
        conf.containsKey("spark.driver.extraJavaOptions")
            ? List.of(conf.get("spark.driver.extraJavaOptions").trim().split("\\s+"))
            : List.of();
    String driverCp = conf.getOrDefault("spark.driver.extraClassPath", "");
    String cp =
        launcherClassPath.isEmpty()
            ? driverCp
            : driverCp.isEmpty() ? launcherClassPath : launcherClassPath + ":" + driverCp;
    List<String> cmd =
        new ArrayList<>(
            home.java(driverMemory, options, cp, "org.apache.spark.deploy.SparkSubmit"));
    cmd.addAll(
        List.of(
            "--master",
            master,
            "--deploy-mode",
            "client",
            "--name",
            name,
            "--class",
            mainClass,
            "--conf",
            "spark.driver.host=" + place.address()));
    conf.forEach((k, v) -> cmd.addAll(List.of("--conf", k + "=" + v)));
    cmd.add(appJar.toString());
    cmd.addAll(args);
    Path log = cluster.work().resolve("logs").resolve("client").resolve(name + ".log");
    long t0 = System.nanoTime();
    Map<String, String> processEnv = new LinkedHashMap<>(home.env(place.address()));
    processEnv.putAll(env);
    Process p =
        io.rdmashuffle.cluster.Launcher.start(
            place,
            new ProcessSpec(
                name,
                user == null ? cmd : io.rdmashuffle.cluster.yarn.MultiUser.as(user, cmd),
                processEnv,
                log),
            cluster.spec().name());
    try {
      int code;
      if (p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        code = p.exitValue();
      } else {
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        code = 124;
      }
      return new Outcome(name, code, log, (System.nanoTime() - t0) / 1e9);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + name + " ran", e);
    }
  }
}
