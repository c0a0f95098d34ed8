/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import io.rdmashuffle.hadoop.reduce.RdmaShuffleConsumer;
import io.rdmashuffle.hadoop.service.RdmaShuffleHandler;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;

/**
 * A MiniMRYarnCluster whose NodeManagers run rdma-shuffle's service as {@code mapreduce_shuffle},
 * as an operator installs it: MiniMRYarnCluster names the stock ShuffleHandler there, so the
 * configuration it is given swaps that one class name for ours. NodeManagers run in this JVM; tasks
 * in their own JVMs with this JVM's class path. Settings keep containers small (two cores run
 * everything) and the stop quick.
 */
public final class RdmaMiniCluster implements AutoCloseable {
  /** The AM's web app (Guice) defines classes reflectively: Java 17 must allow it. */
  public static final String JAVA17_OPENS = "--add-opens=java.base/java.lang=ALL-UNNAMED";

  /** JVM options for task JVMs: quick start, little CPU. */
  public static final String TASK_JVM =
      "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto " + JAVA17_OPENS;

  private final MiniMRYarnCluster cluster;
  private final Path work;

  /** Puts our service (or {@code service}) where MiniMRYarnCluster puts the stock one. */
  static final class OurShuffleService extends YarnConfiguration {
    private static final String KEY =
        String.format(
            YarnConfiguration.NM_AUX_SERVICE_FMT, ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID);

    private final String service;

    OurShuffleService(Class<? extends AuxiliaryService> service) {
      this.service = service.getName();
    }

    @Override
    public void set(String name, String value, String source) {
      super.set(
          name,
          KEY.equals(name) && ShuffleHandler.class.getName().equals(value) ? service : value,
          source);
    }
  }

  private RdmaMiniCluster(MiniMRYarnCluster cluster, Path work) {
    this.cluster = cluster;
    this.work = work;
  }

  /** Starts {@code nodeManagers} NodeManagers; {@code settings} go to every NodeManager. */
  public static RdmaMiniCluster start(String name, int nodeManagers, String... settings) {
    return start(name, nodeManagers, RdmaShuffleHandler.class, settings);
  }

  /**
   * Starts {@code nodeManagers} NodeManagers running {@code service} as {@code mapreduce_shuffle};
   * {@code settings} go to every NodeManager.
   */
  public static RdmaMiniCluster start(
      String name,
      int nodeManagers,
      Class<? extends AuxiliaryService> service,
      String... settings) {
    YarnConfiguration conf = new OurShuffleService(service);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, 2048);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    // stop in 2 s instead of 34 s (the NodeManager waits for container processes otherwise)
    conf.setLong("yarn.nodemanager.sleep-delay-before-sigkill.ms", 100);
    conf.setLong("yarn.nodemanager.process-kill-wait.ms", 100);
    if (Boolean.getBoolean("rdma.test.keepLogs")) {
      // container logs and local dirs stay for 10 minutes after each job, for a look
      conf.setLong("yarn.nodemanager.delete.debug-delay-sec", 600);
    } else {
      conf.setLong("yarn.nodemanager.log.retain-seconds", 0);
    }
    conf.setFloat(
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", 100f);
    // a job's client learns of its end within 200 ms instead of up to 5 s (waitForCompletion
    // polls), and containers are handed out on heartbeats of 250 ms instead of 1 s; every job of
    // a test pays these several times
    conf.setInt(Job.COMPLETION_POLL_INTERVAL_KEY, 200);
    conf.setInt(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 250);
    conf.setInt(MRJobConfig.MR_AM_TO_RM_HEARTBEAT_INTERVAL_MS, 250);
    for (int i = 0; i + 1 < settings.length; i += 2) {
      conf.set(settings[i], settings[i + 1]);
    }
    MiniMRYarnCluster c = new MiniMRYarnCluster(name, nodeManagers);
    c.init(conf);
    c.start();
    Path work = new Path(new File("target", name + "-jobs").getAbsolutePath());
    return new RdmaMiniCluster(c, work);
  }

  public MiniMRYarnCluster yarn() {
    return cluster;
  }

  /**
   * The newest job named {@code name} that ran on this cluster (jobs Hadoop's tools submit, such as
   * TeraSort, are only known by name).
   */
  public Job lastJob(String name) throws IOException, InterruptedException {
    Cluster c = new Cluster(cluster.getConfig());
    JobStatus newest = null;
    for (JobStatus s : c.getAllJobStatuses()) {
      if (s.getJobName().equals(name)
          && (newest == null || s.getStartTime() > newest.getStartTime())) {
        newest = s;
      }
    }
    if (newest == null) {
      throw new IllegalStateException("no job named " + name + " ran on " + cluster.getName());
    }
    return c.getJob(newest.getJobID());
  }

  /** A folder for a job's input or output, under target/. */
  public Path path(String name) {
    return new Path(work, name);
  }

  public FileSystem fs() throws IOException {
    return FileSystem.getLocal(cluster.getConfig());
  }

  /** A job configuration: small containers; with {@code ours}, our shuffle consumer. */
  public Configuration jobConf(boolean ours) {
    Configuration c = new Configuration(cluster.getConfig());
    c.setInt(MRJobConfig.MAP_MEMORY_MB, 384);
    c.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx200m " + TASK_JVM);
    c.setInt(MRJobConfig.REDUCE_MEMORY_MB, 512);
    c.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx300m " + TASK_JVM);
    c.setInt(MRJobConfig.MR_AM_VMEM_MB, 512);
    c.set(MRJobConfig.MR_AM_COMMAND_OPTS, "-Xmx300m " + TASK_JVM);
    if (ours) {
      c.set(
          org.apache.hadoop.mapreduce.MRConfig.SHUFFLE_CONSUMER_PLUGIN,
          RdmaShuffleConsumer.class.getName());
    }
    return c;
  }

  /** The shuffle port of NodeManager {@code i}, as the AM learns it. */
  public int shufflePort(int i) throws IOException {
    return ShuffleHandler.deserializeMetaData(
        cluster
            .getNodeManager(i)
            .getNMContext()
            .getAuxServices()
            .getMetaData()
            .get(ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID));
  }

  /** The local dirs of NodeManager {@code i}. */
  public List<File> localDirs(int i) {
    List<File> out = new ArrayList<>();
    for (String d :
        cluster.getNodeManager(i).getConfig().getTrimmedStrings(YarnConfiguration.NM_LOCAL_DIRS)) {
      out.add(new File(d.startsWith("file:") ? java.net.URI.create(d).getPath() : d));
    }
    return out;
  }

  /** All part files of a job's output, in name order, concatenated. */
  public byte[] output(Path dir) throws IOException {
    FileSystem fs = fs();
    FileStatus[] parts = fs.listStatus(dir, p -> p.getName().startsWith("part-"));
    Arrays.sort(parts);
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (FileStatus s : parts) {
      try (InputStream in = fs.open(s.getPath())) {
        in.transferTo(all);
      }
    }
    return all.toByteArray();
  }

  /** How many part files a job's output has. */
  public int parts(Path dir) throws IOException {
    return fs().listStatus(dir, p -> p.getName().startsWith("part-")).length;
  }

  @Override
  public void close() {
    cluster.stop();
  }
}
