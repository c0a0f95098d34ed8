/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.spark;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmashuffle.cluster.ClusterSite;
import io.rdmashuffle.cluster.Daemon;
import io.rdmashuffle.cluster.Host;
import io.rdmashuffle.cluster.Probes;
import io.rdmashuffle.cluster.ProcessSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Spark standalone on the cluster: a Master on rs-h1 and a Worker on every host, each in its host,
 * started as a distribution's {@code sbin/} scripts would ({@code Master} and {@code Worker} main
 * classes on the Spark home's jars) with {@code SPARK_LOCAL_IP} of its host. Executors start from
 * the Workers, in their hosts, with the host's local dirs. Owned by the {@link
 * io.rdmashuffle.cluster.Cluster}; applications are submitted with {@link #application}.
 */
public final class SparkStandalone {
  public static final int MASTER_PORT = 7077;
  public static final int MASTER_WEB_PORT = 8080;
  public static final int WORKER_PORT = 7078;
  public static final int WORKER_WEB_PORT = 8081;

  /** Daemon heaps: they keep little state; two cores and several hosts share the machine. */
  static final String MASTER_HEAP = "192m";

  static final String WORKER_HEAP = "128m";

  private final ClusterSite cluster;
  private final SparkHome home;
  private final Daemon master;
  private final List<Daemon> workers = new ArrayList<>();

  private SparkStandalone(ClusterSite cluster, SparkHome home, Daemon master) {
    this.cluster = cluster;
    this.home = home;
    this.master = master;
  }

  public static SparkStandalone start(ClusterSite c) {
    SparkHome home = SparkHome.of(c);
    Host h1 = c.host(1);
    Daemon master =
        h1.start(
            new ProcessSpec(
                "spark-master",
                cmd(
                    home.java(
                        MASTER_HEAP, SparkHome.SMALL_JVM, "org.apache.spark.deploy.master.Master"),
                    "--host",
                    h1.address(),
                    "--port",
                    Integer.toString(MASTER_PORT),
                    "--webui-port",
                    Integer.toString(MASTER_WEB_PORT)),
                home.env(h1.address()),
                h1.log("spark-master")));
    SparkStandalone s = new SparkStandalone(c, home, master);
    Probes.await("the Spark Master's web UI", 120, () -> s.masterState() != null, List.of(master));
    for (Host h : c.hosts()) {
      Map<String, String> env = new java.util.LinkedHashMap<>(home.env(h.address()));
      env.put("SPARK_LOCAL_DIRS", h.dir("spark-local").toString());
      s.workers.add(
          h.start(
              new ProcessSpec(
                  "spark-worker",
                  cmd(
                      home.java(
                          WORKER_HEAP,
                          SparkHome.SMALL_JVM,
                          "org.apache.spark.deploy.worker.Worker"),
                      "--host",
                      h.address(),
                      "--port",
                      Integer.toString(WORKER_PORT),
                      "--webui-port",
                      Integer.toString(WORKER_WEB_PORT),
                      "--cores",
                      Integer.toString(c.spec().workerCores()),
                      "--memory",
                      c.spec().workerMemory(),
                      "--work-dir",
                      h.dir("spark-work").toString(),
                      s.masterUrl()),
                  env,
                  h.log("spark-worker"))));
    }
    s.awaitWorkers(c.hosts().size(), 180);
    return s;
  }

  private static List<String> cmd(List<String> java, String... args) {
    List<String> c = new ArrayList<>(java);
    c.addAll(List.of(args));
    return c;
  }

  /** {@code spark://<rs-h1's address>:7077}. */
  public String masterUrl() {
    return "spark://" + cluster.host(1).address() + ":" + MASTER_PORT;
  }

  /** The Master's view of the cluster ({@code /json/}), or null when it can't be had now. */
  public JsonNode masterState() {
    return Probes.json("http://" + cluster.host(1).address() + ":" + MASTER_WEB_PORT + "/json/");
  }

  /** How many Workers the Master counts alive now, or -1 when it can't be asked. */
  public int aliveWorkers() {
    JsonNode s = masterState();
    return s == null ? -1 : s.path("aliveworkers").asInt(-1);
  }

  /** Waits until the Master counts {@code n} Workers alive. */
  public void awaitWorkers(int n, long timeoutSeconds) {
    List<Daemon> watched = new ArrayList<>(workers);
    watched.add(0, master);
    Probes.await(
        n + " Spark Workers registered with the Master",
        timeoutSeconds,
        () -> aliveWorkers() == n,
        watched);
  }

  public Daemon master() {
    return master;
  }

  public List<Daemon> workers() {
    return List.copyOf(workers);
  }

  /** A new application for this cluster's Master, submitted from the root namespace. */
  public SparkApplication application(String name, String mainClass) {
    return new SparkApplication(cluster, home, name, mainClass).master(masterUrl());
  }
}
