/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How qualify's Spark step names a failed application's cause. */
class SparkStepTest {
  @Test
  void aDriverThatDiedIsReportedByItsExceptionNotItsLastFrames() {
    String out =
        String.join(
            "\n",
            "01:53:40.100 INFO SparkContext: Running Spark version 4.1.3",
            "01:53:41.200 WARN NativeCodeLoader: Unable to load native-hadoop library",
            "01:57:36.500 ERROR SparkContext: Error initializing SparkContext.",
            "Exception in thread \"main\" java.lang.IllegalStateException: no executor registered",
            "\tat org.apache.spark.deploy.SparkSubmit.doSubmit(SparkSubmit.scala:95)",
            "\tat org.apache.spark.deploy.SparkSubmit.main(SparkSubmit.scala)",
            "");
    assertEquals(
        "Exception in thread \"main\" java.lang.IllegalStateException: no executor registered",
        SparkStep.firstError(out));
  }

  @Test
  void withoutADriverExceptionTheFirstErrorLineThenTheLastLine() {
    assertEquals(
        "12:00:01.000 ERROR TaskSchedulerImpl: Lost executor 0",
        SparkStep.firstError(
            "12:00:00.000 INFO x: y\n12:00:01.000 ERROR TaskSchedulerImpl: Lost executor 0\n"
                + "12:00:02.000 ERROR Other: later\nbye\n"));
    assertEquals("bye", SparkStep.firstError("12:00:00.000 INFO x: y\n\nbye\n\n"));
    assertEquals("(no output)", SparkStep.firstError("\n \n"));
  }
}
