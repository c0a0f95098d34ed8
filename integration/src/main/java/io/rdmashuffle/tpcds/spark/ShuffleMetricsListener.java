/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.spark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.executor.ShuffleReadMetrics;
import org.apache.spark.executor.ShuffleWriteMetrics;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Sums the shuffle metrics of every task of a query: the runner gives each query run its own job
 * group, this listener maps stages to job groups when their jobs start and adds each finished
 * task's metrics to its group. Registered once per application, on the driver.
 */
final class ShuffleMetricsListener extends SparkListener {
  static final String JOB_GROUP = "spark.jobGroup.id";

  /**
   * Running sums for one job group; guarded by itself (the listener bus adds, the runner reads).
   */
  static final class Totals {
    long writeBytes;
    long writeRecords;
    long writeNanos;
    long readBytes;
    long remoteBytes;
    long localBytes;
    long fetchWaitMillis;
    long tasks;
    long failedTasks;
  }

  private final Map<Integer, String> stageGroups = new ConcurrentHashMap<>();
  private final Map<String, Totals> totals = new ConcurrentHashMap<>();

  @Override
  public void onJobStart(SparkListenerJobStart job) {
    String group = job.properties() == null ? null : job.properties().getProperty(JOB_GROUP);
    if (group == null) {
      return;
    }
    for (Object stage : CollectionConverters.asJava(job.stageIds())) {
      stageGroups.put((Integer) stage, group);
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    String group = stageGroups.get(end.stageId());
    if (group == null) {
      return;
    }
    Totals t = totals.computeIfAbsent(group, g -> new Totals());
    synchronized (t) {
      add(t, end);
    }
  }

  private static void add(Totals t, SparkListenerTaskEnd end) {
    t.tasks++;
    if (end.taskInfo() != null && end.taskInfo().failed()) {
      t.failedTasks++;
    }
    TaskMetrics m = end.taskMetrics();
    if (m == null) {
      return;
    }
    ShuffleWriteMetrics w = m.shuffleWriteMetrics();
    t.writeBytes += w.bytesWritten();
    t.writeRecords += w.recordsWritten();
    t.writeNanos += w.writeTime();
    ShuffleReadMetrics r = m.shuffleReadMetrics();
    t.readBytes += r.totalBytesRead();
    t.remoteBytes += r.remoteBytesRead();
    t.localBytes += r.localBytesRead();
    t.fetchWaitMillis += r.fetchWaitTime();
  }

  /** The sums for a job group (zeros when none of its tasks ended), forgetting it. */
  Totals take(String group) {
    Totals t = totals.remove(group);
    stageGroups.values().removeIf(group::equals);
    if (t == null) {
      return new Totals();
    }
    synchronized (t) {
      return t; // the lock publishes the last additions to this thread
    }
  }
}
