/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;

/**
 * Penalizes a host in Hadoop's shuffle scheduler as the stock fetcher does when a node answers 429
 * (too many shuffle connections): the host is left alone for the backoff, then fetched from again.
 * {@code ShuffleSchedulerImpl.penalize} is package-private (the stock fetcher lives in its
 * package), so it is called reflectively; it has the same signature in 3.4 and 3.5. Checked when
 * the reduce side starts, so a release without it fails the task at once, saying so.
 */
final class SchedulerPenalty {
  private static final Method PENALIZE = find();

  private SchedulerPenalty() {}

  private static Method find() {
    try {
      Method m =
          ShuffleSchedulerImpl.class.getDeclaredMethod("penalize", MapHost.class, long.class);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * @throws UnsupportedOperationException when this Hadoop's scheduler can't penalize a host
   */
  static void check() {
    if (PENALIZE == null) {
      throw new UnsupportedOperationException(
          "rdma-shuffle: this Hadoop's ShuffleSchedulerImpl"
              + " has no penalize(MapHost, long); supported releases are 3.4 and later");
    }
  }

  static void penalize(ShuffleSchedulerImpl<?, ?> scheduler, MapHost host, long delayMillis) {
    check();
    try {
      PENALIZE.invoke(scheduler, host, delayMillis);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("penalize was made accessible", e);
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(t);
    }
  }
}
