/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.spark;

import java.lang.reflect.Method;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkThrowable;

/**
 * The calls into Spark that differ between the versions the runner supports (3.5 to 4.2), each
 * alternative named with its version.
 */
final class SparkErrors {
  private SparkErrors() {}

  /**
   * The error condition of a Spark error ({@code DIVIDE_BY_ZERO}), or null. Spark 4.0 named it
   * {@code getCondition()}; 3.5 has only {@code getErrorClass()} (deprecated in 4.0).
   */
  static String condition(Throwable t) {
    if (!(t instanceof SparkThrowable)) {
      return null;
    }
    for (String name : new String[] {"getCondition", "getErrorClass"}) {
      try {
        Method m = t.getClass().getMethod(name);
        Object v = m.invoke(t);
        if (v != null) {
          return v.toString();
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // try the other name
      }
    }
    return null;
  }

  /**
   * Waits until the listener bus has delivered every event posted so far, so a query's task metrics
   * are all counted before its record is written. {@code listenerBus} is {@code private[spark]}
   * (public in bytecode) in 3.5 to 4.2.
   */
  static void drainListenerBus(SparkContext sc, long timeoutMillis) {
    try {
      sc.listenerBus().waitUntilEmpty(timeoutMillis);
    } catch (java.util.concurrent.TimeoutException e) {
      // events still queued: the last tasks' metrics may be missing from this query's figures
    } catch (RuntimeException | LinkageError e) {
      // a later Spark without this method: metrics of the query's last tasks may be missing
      sleepQuietly(Math.min(timeoutMillis, 500));
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
