/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

class ExecutorCoresTest {
  private static final String BACKEND =
      "org.apache.spark.executor.CoarseGrainedExecutorBackend"
          + " --driver-url spark://CoarseGrainedScheduler@127.0.0.1:40000 --executor-id 1"
          + " --hostname localhost --cores 6 --app-id app-1 --worker-url spark://Worker@127.0.0.1:1";

  @Test
  void spark_executor_coresWhenSet() {
    SparkConf conf = new SparkConf(false).set("spark.executor.cores", "3");
    assertEquals(3, ExecutorCores.of(conf, false, BACKEND, 2));
    assertEquals(3, ExecutorCores.of(conf, true, "", 8));
  }

  /** A standalone executor takes its worker's cores; only its command line says how many. */
  @Test
  void theCoresTheExecutorBackendWasStartedWithWhenUnset() {
    assertEquals(6, ExecutorCores.of(new SparkConf(false), false, BACKEND, 2));
  }

  @Test
  void theMachinesProcessorsInLocalModeOrWhenNothingSays() {
    assertEquals(8, ExecutorCores.of(new SparkConf(false), true, BACKEND, 8));
    assertEquals(4, ExecutorCores.of(new SparkConf(false), false, "some.Main --x 1", 4));
    assertEquals(4, ExecutorCores.of(new SparkConf(false), false, "Main --cores", 4));
    assertEquals(4, ExecutorCores.of(new SparkConf(false), false, "Main --cores many", 4));
  }
}
