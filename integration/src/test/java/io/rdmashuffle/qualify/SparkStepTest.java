/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How qualify's Spark step names a failed application's cause. */
class SparkStepTest {
  @TempDir Path home;

  /**
   * A Spark home of jars only (as the project builds one) runs the driver in the launched JVM: the
   * plugin must be on that JVM's class path, where spark.driver.extraClassPath does not reach (the
   * guest's run failed on ours with ClassNotFoundException: RdmaShuffleManager).
   */
  @Test
  void aDriverLaunchedByHandHasThePluginOnItsClassPathAndWaitsAsLongAsTheStep() {
    SparkStep step =
        new SparkStep(
            new SparkStep.Options(
                home,
                "spark://198.18.100.1:7077",
                32L << 20,
                2,
                "/opt/rdma-shuffle/plugin.jar",
                "/opt/rdma-shuffle/app.jar",
                Map.of("spark.shuffle.rdma.verbs.registration", "odp"),
                1500,
                home.resolve("report")));
    for (boolean ours : new boolean[] {false, true}) {
      List<String> cmd = step.command(ours);
      String cp = cmd.get(cmd.indexOf("-cp") + 1);
      assertEquals(home.resolve("jars") + "/*:/opt/rdma-shuffle/plugin.jar", cp);
      assertEquals(
          List.of("/opt/rdma-shuffle/app.jar", Long.toString(32L << 20), "2", "1500"),
          cmd.subList(cmd.size() - 4, cmd.size()));
      assertEquals(
          ours,
          cmd.contains("spark.shuffle.manager=org.apache.spark.shuffle.rdma.RdmaShuffleManager"));
      assertEquals(ours, cmd.contains("spark.shuffle.rdma.verbs.registration=odp"));
    }
    assertTrue(step.command(true).contains("spark.shuffle.rdma.transport=verbs"));
  }

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
