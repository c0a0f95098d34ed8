/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Sums, over the tasks that read shuffle data and end while it counts (from its creation to {@link
 * #stop}), the time they waited for shuffle blocks and the time they ran: the share of the reduce
 * side a shuffle's fetch path could win at most.
 */
final class FetchWaitListener extends SparkListener {
  /** Fetch wait and run time of shuffle-reading tasks, in milliseconds. */
  record ReduceTime(long fetchWaitMs, long runMs) {
    static final ReduceTime ZERO = new ReduceTime(0, 0);

    ReduceTime plus(ReduceTime o) {
      return new ReduceTime(fetchWaitMs + o.fetchWaitMs, runMs + o.runMs);
    }
  }

  private final AtomicLong fetchWaitMs = new AtomicLong();
  private final AtomicLong runMs = new AtomicLong();
  private volatile boolean counting = true;

  /** Stops counting; returns what the counted tasks added up to. */
  ReduceTime stop() {
    counting = false;
    return new ReduceTime(fetchWaitMs.get(), runMs.get());
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    TaskMetrics m = end.taskMetrics();
    if (!counting || m == null || m.shuffleReadMetrics().totalBlocksFetched() == 0) {
      return;
    }
    fetchWaitMs.addAndGet(m.shuffleReadMetrics().fetchWaitTime());
    runMs.addAndGet(m.executorRunTime());
  }
}
