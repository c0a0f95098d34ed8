/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.yarn;

import io.rdmashuffle.cluster.ClusterSite;
import io.rdmashuffle.cluster.Host;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Hadoop configuration of the cluster, per host and for clients: {@code core-site.xml} ({@code
 * fs.defaultFS=file:///}: the shared folder stands in for HDFS), {@code yarn-site.xml} (the
 * ResourceManager on rs-h1, small NodeManagers that stop quickly, and the shuffle service:
 * rdma-shuffle's, with exactly the two properties of the README's operator snippet, or the stock
 * one) and {@code mapred-site.xml} (YARN, staging and history in the shared folder, small task
 * JVMs). The spec's own properties are applied last and win.
 */
final class YarnSettings {
  static final String OUR_SERVICE = "io.rdmashuffle.hadoop.service.RdmaShuffleHandler";
  static final String STOCK_SERVICE = "org.apache.hadoop.mapred.ShuffleHandler";
  static final int RM_WEB_PORT = 8088;
  static final int HISTORY_PORT = 10020;
  static final int HISTORY_WEB_PORT = 19888;
  static final int NM_PORT = 45454;

  /** Java 17 and Hadoop 3.4's web apps (Guice) and RPC. */
  static final String JAVA17_OPENS =
      "--add-opens=java.base/java.lang=ALL-UNNAMED"
          + " --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED"
          + " --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED";

  /** Task JVMs: quick start, little CPU. */
  static final String TASK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC " + JAVA17_OPENS;

  private final ClusterSite cluster;
  private final Path home;
  private final Path containerExecutor;

  /**
   * @param containerExecutor the multi-user mode's container-executor, or null: containers run as
   *     the NodeManager's user (Hadoop's DefaultContainerExecutor)
   */
  YarnSettings(ClusterSite cluster, Path home, Path containerExecutor) {
    this.cluster = cluster;
    this.home = home;
    this.containerExecutor = containerExecutor;
  }

  String resourceManager() {
    return cluster.host(1).name();
  }

  Map<String, String> core(Path tmp) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("fs.defaultFS", "file:///");
    m.put("hadoop.tmp.dir", tmp.toString());
    return m;
  }

  /** yarn-site.xml of {@code host}, or of a client when null. */
  Map<String, String> yarn(Host host) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("yarn.resourcemanager.hostname", resourceManager());
    // FIFO: no queue limits on how many AMs a small cluster runs at once
    m.put(
        "yarn.resourcemanager.scheduler.class",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler");
    m.put("yarn.scheduler.minimum-allocation-mb", "128");
    m.put(
        "yarn.scheduler.maximum-allocation-mb",
        Integer.toString(cluster.spec().nodeManagerMemoryMb()));
    m.put(
        "yarn.nodemanager.resource.memory-mb",
        Integer.toString(cluster.spec().nodeManagerMemoryMb()));
    m.put(
        "yarn.nodemanager.resource.cpu-vcores",
        Integer.toString(cluster.spec().nodeManagerVcores()));
    m.put("yarn.nodemanager.vmem-check-enabled", "false");
    m.put("yarn.nodemanager.pmem-check-enabled", "false");
    m.put("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", "100");
    // a NodeManager kills its containers at once instead of after 250 ms + 2 s per container
    m.put("yarn.nodemanager.sleep-delay-before-sigkill.ms", "100");
    m.put("yarn.nodemanager.process-kill-wait.ms", "100");
    // container logs stay (yarn.nodemanager.log.retain-seconds, 3 h) for post-mortems; the
    // price: once an application ran, a graceful NodeManager stop waits 10 s for its log
    // deleter (retain-seconds=0 stops it in about 2 s but deletes the logs at application end).
    // The harness's tear-down does not wait (SIGKILL after 3 s); restart takes a grace time.
    // a host that went away counts as lost after 30 s, not 10 min (fault tests)
    m.put("yarn.nm.liveness-monitor.expiry-interval-ms", "30000");
    m.put("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "500");
    m.put(
        "yarn.nodemanager.env-whitelist",
        "JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,"
            + "HADOOP_CONF_DIR,CLASSPATH_PREPEND_DISTCACHE,HADOOP_YARN_HOME,HADOOP_HOME,PATH,LANG,TZ,"
            + "HADOOP_MAPRED_HOME");
    m.put("yarn.log-aggregation-enable", "false");
    m.put("yarn.webapp.ui2.enable", "false");
    m.put("yarn.timeline-service.enabled", "false");
    // the README's operator snippet (conf/yarn-site.xml), or the stock service
    m.put("yarn.nodemanager.aux-services", "mapreduce_shuffle");
    m.put(
        "yarn.nodemanager.aux-services.mapreduce_shuffle.class",
        cluster.spec().ourShuffleService() ? OUR_SERVICE : STOCK_SERVICE);
    if (host != null) {
      m.put("yarn.nodemanager.hostname", host.name());
      m.put("yarn.nodemanager.address", host.name() + ":" + NM_PORT);
      m.put("yarn.nodemanager.local-dirs", host.dir("nm-local").toString());
      m.put("yarn.nodemanager.log-dirs", host.dir("nm-logs").toString());
      if (containerExecutor != null) {
        m.putAll(MultiUser.yarnSite(containerExecutor));
      }
    }
    m.putAll(cluster.spec().yarnSite());
    return m;
  }

  Map<String, String> mapred() {
    Path shared = cluster.shared();
    String historyHost = resourceManager();
    String mapredHome = "HADOOP_MAPRED_HOME=" + home;
    Map<String, String> m = new LinkedHashMap<>();
    m.put("mapreduce.framework.name", "yarn");
    m.put("yarn.app.mapreduce.am.staging-dir", shared.resolve("staging").toString());
    m.put("mapreduce.jobhistory.address", historyHost + ":" + HISTORY_PORT);
    m.put("mapreduce.jobhistory.webapp.address", historyHost + ":" + HISTORY_WEB_PORT);
    m.put(
        "mapreduce.jobhistory.intermediate-done-dir",
        shared.resolve("history/done_intermediate").toString());
    m.put("mapreduce.jobhistory.done-dir", shared.resolve("history/done").toString());
    m.put("yarn.app.mapreduce.am.env", mapredHome);
    m.put("mapreduce.map.env", mapredHome);
    m.put("mapreduce.reduce.env", mapredHome);
    m.put("yarn.app.mapreduce.am.resource.mb", "512");
    m.put("yarn.app.mapreduce.am.command-opts", "-Xmx300m " + TASK_JVM);
    m.put("mapreduce.map.memory.mb", "384");
    m.put("mapreduce.map.java.opts", "-Xmx200m " + TASK_JVM);
    m.put("mapreduce.reduce.memory.mb", "512");
    m.put("mapreduce.reduce.java.opts", "-Xmx300m " + TASK_JVM);
    m.put("mapreduce.task.io.sort.mb", "32");
    m.putAll(cluster.spec().mapredSite());
    return m;
  }

  /** Hadoop's logging (reload4j) for daemons and clients: INFO on stderr, into their logs. */
  static String log4j() {
    return """
        # Hadoop daemons and clients of the cluster harness: INFO into each process's log
        log4j.rootLogger=INFO,console
        log4j.appender.console=org.apache.log4j.ConsoleAppender
        log4j.appender.console.target=System.err
        log4j.appender.console.layout=org.apache.log4j.PatternLayout
        log4j.appender.console.layout.ConversionPattern=%d{HH:mm:ss,SSS} %p %c{1}: %m%n
        log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
        """;
  }
}
