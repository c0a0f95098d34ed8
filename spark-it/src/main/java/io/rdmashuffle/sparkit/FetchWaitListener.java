package io.rdmashuffle.sparkit;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Sums, over the tasks that read shuffle data, the time they waited for shuffle blocks and the
 * time they ran: the share of the reduce side a shuffle's fetch path could win at most.
 */
final class FetchWaitListener extends SparkListener {
  private final AtomicLong fetchWaitMs = new AtomicLong();
  private final AtomicLong runMs = new AtomicLong();
  private volatile boolean counting;

  /** Counts the tasks that end from now on. */
  void start() {
    counting = true;
  }

  /** Stops counting; returns {fetch wait ms, run time ms} of the counted shuffle-reading tasks. */
  long[] stop() {
    counting = false;
    return new long[] {fetchWaitMs.get(), runMs.get()};
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
