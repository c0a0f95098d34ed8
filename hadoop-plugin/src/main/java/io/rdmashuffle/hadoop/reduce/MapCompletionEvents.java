/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import java.io.IOException;
import org.apache.hadoop.mapred.MapTaskCompletionEventsUpdate;
import org.apache.hadoop.mapred.TaskAttemptID;
import org.apache.hadoop.mapred.TaskCompletionEvent;
import org.apache.hadoop.mapred.TaskUmbilicalProtocol;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns map completions as the stock shuffle does: polls the AM over the task's umbilical for new
 * map completion events and hands each to the shuffle scheduler ({@code resolve}: succeeded maps
 * become fetchable at their host, obsolete and failed ones are dropped, failed tasks are given up
 * on). Hadoop's own EventFetcher does the same but is package-private. Daemon thread, as the task's
 * user ({@link TaskUserThread}); owned by {@link RdmaShuffleConsumer}, stopped by {@link
 * #shutDown()}.
 */
final class MapCompletionEvents extends TaskUserThread {
  private static final Logger LOG = LoggerFactory.getLogger(MapCompletionEvents.class);
  private static final long POLL_MILLIS = 1000;
  private static final long RETRY_MILLIS = 5000;
  private static final int MAX_FAILURES = 10;

  private final TaskAttemptID reduce;
  private final TaskUmbilicalProtocol umbilical;
  private final ShuffleScheduler<?, ?> scheduler;
  private final ExceptionReporter errors;
  private final int maxEventsPerCall;
  private volatile boolean stopped;
  private int next;

  MapCompletionEvents(
      TaskAttemptID reduce,
      TaskUmbilicalProtocol umbilical,
      ShuffleScheduler<?, ?> scheduler,
      ExceptionReporter errors,
      int maxEventsPerCall) {
    super("rdma-shuffle map completion events");
    setDaemon(true);
    this.reduce = reduce;
    this.umbilical = umbilical;
    this.scheduler = scheduler;
    this.errors = errors;
    this.maxEventsPerCall = maxEventsPerCall;
  }

  @Override
  protected void work() {
    int failures = 0;
    try {
      while (!stopped) {
        try {
          int found = poll();
          failures = 0;
          if (found > 0) {
            LOG.info("{}: {} new map outputs", reduce, found);
          }
          Thread.sleep(POLL_MILLIS);
        } catch (IOException e) {
          if (++failures >= MAX_FAILURES) {
            throw new IOException("map completion events failed " + failures + " times", e);
          }
          LOG.info("fetching map completion events failed ({} of {})", failures, MAX_FAILURES, e);
          Thread.sleep(RETRY_MILLIS);
        }
      }
    } catch (InterruptedException e) {
      // shutDown
    } catch (Throwable t) {
      errors.reportException(t);
    }
  }

  /** Asks until the AM has nothing new; returns how many maps succeeded meanwhile. */
  private int poll() throws IOException, InterruptedException {
    int succeeded = 0;
    TaskCompletionEvent[] events;
    do {
      MapTaskCompletionEventsUpdate update =
          umbilical.getMapCompletionEvents(reduce.getJobID(), next, maxEventsPerCall, reduce);
      events = update.getMapTaskCompletionEvents();
      next += events.length;
      for (TaskCompletionEvent e : events) {
        scheduler.resolve(e);
        if (e.getTaskStatus() == TaskCompletionEvent.Status.SUCCEEDED) {
          succeeded++;
        }
      }
    } while (events.length == maxEventsPerCall && !stopped);
    return succeeded;
  }

  void shutDown() {
    stopped = true;
    interrupt();
    try {
      join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
