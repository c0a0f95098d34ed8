/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.executor.ShuffleReadMetrics;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.StageInfo;

/**
 * What {@link NetworkPathApp} measures of its shuffle (the one after the warm-up, if any), on the
 * driver: the map stage (the first stage without a parent) and the reduce stage (the stage with a
 * parent) from submission to completion, and the sums over its tasks of their run time, the time
 * they waited for blocks ({@link ShuffleReadMetrics#fetchWaitTime}) and the bytes they read from
 * other executors and from their own. Tells the runner when the reduce stage was submitted ({@link
 * Markers#REDUCE_STARTED}). Fields are guarded by the instance: the listener bus writes, the
 * driver's main thread reads after {@code waitUntilEmpty}.
 */
final class ReduceStageListener extends SparkListener {
  private final Markers markers;

  /** False while the application runs a warm-up job: its stages are not the ones measured. */
  private boolean measuring;

  final Map<String, String> executorHosts = new ConcurrentHashMap<>();
  private int reduceStage = -1;
  private int mapStage = -1;
  long mapStageMillis;
  long stageSubmittedMillis;
  long stageCompletedMillis;
  long tasks;
  long failedTasks;
  long runMillis;
  long fetchWaitMillis;
  long remoteBytes;
  long localBytes;
  long remoteBlocks;

  /** Wall-clock millis of the reduce tasks' launches (driver), in the order they ended. */
  final List<Long> launches = new ArrayList<>();

  /** Measuring from the first stage on with {@code measuring}, else from {@link #measure()}. */
  ReduceStageListener(Markers markers, boolean measuring) {
    this.markers = markers;
    this.measuring = measuring;
  }

  /**
   * The stages submitted from now on are the measured ones. Called once the listener bus has
   * delivered every event of the warm-up job.
   */
  synchronized void measure() {
    measuring = true;
  }

  private static boolean isReduce(StageInfo s) {
    return !s.parentIds().isEmpty();
  }

  @Override
  public synchronized void onStageSubmitted(SparkListenerStageSubmitted e) {
    if (!measuring) {
      return;
    }
    if (!isReduce(e.stageInfo()) && mapStage < 0) {
      mapStage = e.stageInfo().stageId();
    }
    if (isReduce(e.stageInfo()) && reduceStage < 0) {
      reduceStage = e.stageInfo().stageId();
      markers.put(Markers.REDUCE_STARTED, Long.toString(System.currentTimeMillis()));
    }
  }

  @Override
  public synchronized void onStageCompleted(SparkListenerStageCompleted e) {
    StageInfo s = e.stageInfo();
    if (s.stageId() == mapStage) {
      mapStageMillis = (Long) s.completionTime().get() - (Long) s.submissionTime().get();
    }
    if (s.stageId() == reduceStage) {
      stageSubmittedMillis = (Long) s.submissionTime().get();
      stageCompletedMillis = (Long) s.completionTime().get();
    }
  }

  @Override
  public void onExecutorAdded(SparkListenerExecutorAdded e) {
    executorHosts.put(e.executorId(), e.executorInfo().executorHost());
  }

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd e) {
    executorHosts.putIfAbsent(e.taskInfo().executorId(), e.taskInfo().host());
    if (e.stageId() != reduceStage) {
      return;
    }
    tasks++;
    launches.add(e.taskInfo().launchTime());
    if (e.taskInfo().failed()) {
      failedTasks++;
    }
    TaskMetrics m = e.taskMetrics();
    if (m == null) {
      return;
    }
    ShuffleReadMetrics r = m.shuffleReadMetrics();
    runMillis += m.executorRunTime();
    fetchWaitMillis += r.fetchWaitTime();
    remoteBytes += r.remoteBytesRead();
    localBytes += r.localBytesRead();
    remoteBlocks += r.remoteBlocksFetched();
  }

  synchronized long stageMillis() {
    return stageCompletedMillis - stageSubmittedMillis;
  }

  /** Millis from the reduce stage's submission to its first task's launch (-1 without tasks). */
  synchronized long firstLaunchMillis() {
    return launches.isEmpty()
        ? -1
        : launches.stream().mapToLong(Long::longValue).min().getAsLong() - stageSubmittedMillis;
  }

  /** Millis from the reduce stage's submission to its last task's launch (-1 without tasks). */
  synchronized long lastLaunchMillis() {
    return launches.isEmpty()
        ? -1
        : launches.stream().mapToLong(Long::longValue).max().getAsLong() - stageSubmittedMillis;
  }
}
