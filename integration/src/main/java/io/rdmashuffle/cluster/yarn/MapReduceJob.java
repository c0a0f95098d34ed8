/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.yarn;

import io.rdmashuffle.cluster.ClusterSite;
import io.rdmashuffle.cluster.Launcher;
import io.rdmashuffle.cluster.ProcessSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One MapReduce job submitted to the cluster's YARN from the root namespace: the client is the
 * harness's job driver ({@code io.rdmashuffle.cluster.hadoop.ClusterJob}, module {@code
 * integration/hadoop-cluster}) on Hadoop's jars and the clients' configuration, never on this JVM's
 * class path. A builder; {@link #run} submits, waits, and reads the driver's report.
 */
public final class MapReduceJob {
  /** The reduce-side consumer as the README tells users to set it per job. */
  public static final String CONSUMER_KEY = "mapreduce.job.reduce.shuffle.consumer.plugin.class";

  public static final String OUR_CONSUMER = "io.rdmashuffle.hadoop.reduce.RdmaShuffleConsumer";

  private final ClusterSite cluster;
  private final YarnCluster yarn;
  private final String name;
  private final String job;
  private final Map<String, String> settings = new LinkedHashMap<>();
  private final List<Path> inputs = new ArrayList<>();
  private Path output;
  private int reducers = 2;
  private String user;

  MapReduceJob(ClusterSite cluster, YarnCluster yarn, String name, String job) {
    this.cluster = cluster;
    this.yarn = yarn;
    this.name = name;
    this.job = job;
    this.output = cluster.shared().resolve("out").resolve(name);
  }

  /** A job setting ({@code -D key=value}). */
  public MapReduceJob set(String key, String value) {
    settings.put(key, value);
    return this;
  }

  /** rdma-shuffle's reduce-side consumer for this job. */
  public MapReduceJob withRdmaShuffle() {
    return set(CONSUMER_KEY, OUR_CONSUMER);
  }

  public MapReduceJob input(Path p) {
    inputs.add(p);
    return this;
  }

  public MapReduceJob output(Path p) {
    output = p;
    return this;
  }

  /** Submitted by {@code user} (multi-user mode: the client runs as that user). */
  public MapReduceJob as(String user) {
    this.user = user;
    return this;
  }

  public MapReduceJob reducers(int n) {
    reducers = n;
    return this;
  }

  /** Submits and waits at most {@code timeoutSeconds}; past it the client is killed (exit 124). */
  public JobReport run(long timeoutSeconds) {
    Path report = cluster.work().resolve("client/reports").resolve(name + ".properties");
    Path log = cluster.work().resolve("logs/client").resolve(name + ".log");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Launcher.java(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                yarn.clientConf()
                    + ":"
                    + yarn.home().resolve("share/hadoop/common/lib")
                    + "/*:"
                    + cluster.paths().hadoopJobsJar(),
                "io.rdmashuffle.cluster.hadoop.ClusterJob"));
    settings.forEach((k, v) -> cmd.addAll(List.of("-D", k + "=" + v)));
    cmd.addAll(
        List.of(
            job,
            "--report",
            report.toString(),
            "--reducers",
            Integer.toString(reducers),
            "--name",
            name));
    inputs.forEach(p -> cmd.add(p.toString()));
    cmd.add(output.toString());
    long t0 = System.nanoTime();
    Process p =
        Launcher.start(
            cluster.edge(),
            new ProcessSpec(
                name, user == null ? cmd : MultiUser.as(user, cmd), yarn.clientEnv(), log),
            cluster.spec().name());
    int code;
    try {
      if (p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        code = p.exitValue();
      } else {
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        code = 124;
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + name + " ran", e);
    }
    return JobReport.read(name, code, report, log, output, (System.nanoTime() - t0) / 1e9);
  }
}
