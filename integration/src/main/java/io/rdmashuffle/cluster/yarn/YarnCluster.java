/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmashuffle.cluster.ClusterSite;
import io.rdmashuffle.cluster.Daemon;
import io.rdmashuffle.cluster.Host;
import io.rdmashuffle.cluster.Launcher;
import io.rdmashuffle.cluster.Probes;
import io.rdmashuffle.cluster.ProcessSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * YARN on the cluster, from Hadoop's jars: the ResourceManager and the MapReduce job history server
 * on rs-h1, a NodeManager on every host, each with its host's configuration folder ({@code
 * hosts/rs-hN/hadoop-conf}); clients (MapReduce jobs, {@code spark-submit --master yarn}) use
 * {@code client/hadoop-conf}. Owned by the {@link io.rdmashuffle.cluster.Cluster}.
 */
public final class YarnCluster {
  /** Daemon heaps: small, two cores and several hosts share the machine. */
  static final String RM_HEAP = "256m";

  static final String HISTORY_HEAP = "192m";
  static final String RM = "org.apache.hadoop.yarn.server.resourcemanager.ResourceManager";
  static final String NM = "org.apache.hadoop.yarn.server.nodemanager.NodeManager";
  static final String HISTORY = "org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer";

  private final ClusterSite cluster;
  private final Path home;
  private final YarnSettings settings;
  private final Path clientConf;
  private Daemon resourceManager;
  private Daemon history;
  private final List<Daemon> nodeManagers = new ArrayList<>();

  private YarnCluster(ClusterSite cluster, Path home, Path containerExecutor) {
    this.cluster = cluster;
    this.home = home;
    this.settings = new YarnSettings(cluster, home, containerExecutor);
    this.clientConf = cluster.work().resolve("client/hadoop-conf");
  }

  public static YarnCluster start(ClusterSite c) {
    Path executor = c.spec().multiUser() ? MultiUser.prepare(c) : null;
    YarnCluster y = new YarnCluster(c, HadoopHome.assemble(c), executor);
    y.writeConf(null, y.clientConf, c.work().resolve("client/tmp"));
    for (Host h : c.hosts()) {
      y.writeConf(h, y.conf(h), h.dir("hadoop-tmp"));
      if (executor != null) {
        MultiUser.ownNodeManagerDirs(h);
      }
    }
    Host h1 = c.host(1);
    y.resourceManager = h1.start(y.daemon(h1, "resourcemanager", RM_HEAP, RM));
    y.history = h1.start(y.daemon(h1, "historyserver", HISTORY_HEAP, HISTORY));
    Probes.await(
        "the ResourceManager's REST API",
        120,
        () -> y.runningNodes() >= 0,
        List.of(y.resourceManager));
    for (Host h : c.hosts()) {
      y.nodeManagers.add(h.start(y.daemon(h, "nodemanager", c.spec().nodeManagerHeap(), NM)));
    }
    y.awaitNodeManagers(c.hosts().size(), 180);
    Probes.await(
        "the job history server's REST API",
        120,
        () ->
            Probes.json(
                    "http://"
                        + h1.address()
                        + ":"
                        + YarnSettings.HISTORY_WEB_PORT
                        + "/ws/v1/history/info")
                != null,
        List.of(y.history));
    return y;
  }

  private Path conf(Host h) {
    return h.dir("hadoop-conf");
  }

  private void writeConf(Host h, Path dir, Path tmp) {
    String who = h == null ? "clients" : h.name();
    SiteFile.write(dir.resolve("core-site.xml"), "cluster harness, " + who, settings.core(tmp));
    SiteFile.write(dir.resolve("yarn-site.xml"), "cluster harness, " + who, settings.yarn(h));
    SiteFile.write(dir.resolve("mapred-site.xml"), "cluster harness, " + who, settings.mapred());
    try {
      Files.writeString(dir.resolve("log4j.properties"), YarnSettings.log4j());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private ProcessSpec daemon(Host h, String name, String heap, String mainClass) {
    List<String> cmd =
        new ArrayList<>(
            List.of(Launcher.java(), "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(List.of(YarnSettings.JAVA17_OPENS.split(" ")));
    cmd.addAll(
        List.of(
            "-Dhadoop.log.dir=" + h.log(name).getParent(),
            "-Dyarn.log.dir=" + h.log(name).getParent(),
            "-Dhadoop.home.dir=" + home,
            "-cp",
            HadoopHome.daemonClassPath(home, conf(h)),
            mainClass));
    if (cluster.spec().multiUser() && mainClass.equals(NM)) {
      // as operators run it: the NodeManager is not root, containers run as their users
      cmd = MultiUser.as(MultiUser.NM_USER, cmd);
    }
    return new ProcessSpec(name, cmd, env(conf(h)), h.log(name));
  }

  /** What a Hadoop process (daemon or client) finds in its environment. */
  Map<String, String> env(Path conf) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("JAVA_HOME", System.getProperty("java.home"));
    for (String v :
        List.of(
            "HADOOP_HOME",
            "HADOOP_COMMON_HOME",
            "HADOOP_HDFS_HOME",
            "HADOOP_YARN_HOME",
            "HADOOP_MAPRED_HOME")) {
      env.put(v, home.toString());
    }
    env.put("HADOOP_CONF_DIR", conf.toString());
    env.put("YARN_CONF_DIR", conf.toString());
    return env;
  }

  /** The ResourceManager's REST API at {@code path} ({@code /ws/v1/cluster/nodes}). */
  public JsonNode rest(String path) {
    return Probes.json(
        "http://" + cluster.host(1).address() + ":" + YarnSettings.RM_WEB_PORT + path);
  }

  /** The job history server's REST API at {@code path}. */
  public JsonNode historyRest(String path) {
    return Probes.json(
        "http://" + cluster.host(1).address() + ":" + YarnSettings.HISTORY_WEB_PORT + path);
  }

  /** NodeManagers the ResourceManager counts RUNNING, or -1 when it can't be asked. */
  public int runningNodes() {
    JsonNode m = rest("/ws/v1/cluster/metrics");
    return m == null ? -1 : m.path("clusterMetrics").path("activeNodes").asInt(-1);
  }

  /** Waits until the ResourceManager counts {@code n} NodeManagers RUNNING. */
  public void awaitNodeManagers(int n, long timeoutSeconds) {
    List<Daemon> watched = new ArrayList<>(nodeManagers);
    watched.add(0, resourceManager);
    Probes.await(
        n + " NodeManagers registered with the ResourceManager",
        timeoutSeconds,
        () -> runningNodes() == n,
        watched);
  }

  public Daemon resourceManager() {
    return resourceManager;
  }

  public Daemon historyServer() {
    return history;
  }

  /** The NodeManager of host {@code i} (1-based). */
  public Daemon nodeManager(int i) {
    return nodeManagers.get(i - 1);
  }

  /** The clients' configuration folder ({@code HADOOP_CONF_DIR} of spark-submit on YARN). */
  public Path clientConf() {
    return clientConf;
  }

  /** The cluster's HADOOP_HOME. */
  public Path home() {
    return home;
  }

  /** The environment of a client process. */
  public Map<String, String> clientEnv() {
    return env(clientConf);
  }

  /**
   * A Spark application for this YARN ({@code --master yarn}), submitted from the root namespace
   * with the Spark home that has spark-yarn.
   */
  public io.rdmashuffle.cluster.spark.SparkApplication sparkApplication(
      String name, String mainClass) {
    return io.rdmashuffle.cluster.spark.SparkApplication.onYarn(
        cluster, clientEnv(), clientConf, name, mainClass);
  }

  /** A MapReduce job of the harness's jobs jar, submitted from the root namespace. */
  public MapReduceJob job(String name, String job) {
    return new MapReduceJob(cluster, this, name, job);
  }
}
