/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.FetchFailed;
import org.apache.spark.Success$;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * What the scheduler reported of an application's tasks and stages from the moment this listener
 * was added: fetch failures (with their messages), other task failures, stages submitted again (a
 * stage attempt above 0: a map stage re-run), map tasks that succeeded, speculative attempts, bytes
 * spilled by map tasks.
 */
final class TaskOutcomes extends SparkListener {
  final AtomicInteger fetchFailures = new AtomicInteger();
  final AtomicInteger otherFailures = new AtomicInteger();
  final AtomicInteger stageReattempts = new AtomicInteger();
  final AtomicInteger mapTasksSucceeded = new AtomicInteger();
  final AtomicInteger speculativeAttempts = new AtomicInteger();
  final AtomicLong mapBytesSpilled = new AtomicLong();
  private final List<String> fetchFailureMessages = new ArrayList<>();
  private final List<String> otherFailureReasons = new ArrayList<>();

  private TaskOutcomes() {}

  /** Starts counting. */
  static TaskOutcomes watch(JavaSparkContext sc) {
    TaskOutcomes t = new TaskOutcomes();
    sc.sc().addSparkListener(t);
    return t;
  }

  /** Waits until every event so far was counted, and stops counting. */
  TaskOutcomes settle(JavaSparkContext sc) throws TimeoutException {
    sc.sc().listenerBus().waitUntilEmpty(30_000);
    sc.sc().removeSparkListener(this);
    return this;
  }

  @Override
  public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
    if (submitted.stageInfo().attemptNumber() > 0) {
      stageReattempts.incrementAndGet();
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.taskInfo().speculative()) {
      speculativeAttempts.incrementAndGet();
    }
    if (end.reason() instanceof FetchFailed f) {
      fetchFailures.incrementAndGet();
      synchronized (this) {
        fetchFailureMessages.add(f.toErrorString());
      }
    } else if (!(end.reason() instanceof Success$)) {
      otherFailures.incrementAndGet();
      synchronized (this) {
        otherFailureReasons.add(end.reason().toString());
      }
    } else if ("ShuffleMapTask".equals(end.taskType())) {
      mapTasksSucceeded.incrementAndGet();
      TaskMetrics m = end.taskMetrics();
      if (m != null) {
        mapBytesSpilled.addAndGet(m.diskBytesSpilled());
      }
    }
  }

  synchronized List<String> fetchFailureMessages() {
    return new ArrayList<>(fetchFailureMessages);
  }

  @Override
  public synchronized String toString() {
    return "fetch failures "
        + fetchFailureMessages
        + ", other failures "
        + otherFailureReasons
        + ", stages re-attempted "
        + stageReattempts
        + ", map tasks succeeded "
        + mapTasksSucceeded
        + ", speculative attempts "
        + speculativeAttempts
        + ", map bytes spilled "
        + mapBytesSpilled;
  }
}
