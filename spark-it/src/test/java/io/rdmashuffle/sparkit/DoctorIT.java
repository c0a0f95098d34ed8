/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The doctor from a spark-submit environment: {@code spark-submit <plugin jar>} runs it (the jar's
 * main class) with the settings spark-submit collected ({@code --conf}, spark-defaults.conf), and
 * its exit status says whether the configured transport can run.
 */
@Timeout(300)
class DoctorIT {
  private record Run(int exit, String output) {}

  private static Run sparkSubmit(String... conf) throws Exception {
    String sparkHome = ItCluster.property("rdma.it.sparkHome");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                sparkHome + File.separator + "jars" + File.separator + "*",
                "org.apache.spark.deploy.SparkSubmit",
                "--master",
                "local[1]"));
    for (String c : conf) {
      cmd.add("--conf");
      cmd.add(c);
    }
    cmd.add(ItCluster.property("rdma.it.pluginJar"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("SPARK_HOME", sparkHome);
    pb.environment().remove("SPARK_CONF_DIR");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "spark-submit did not end");
    return new Run(p.exitValue(), out);
  }

  @Test
  void sparkSubmitOfThePluginJarRunsTheDoctorWithItsSettings() throws Exception {
    Run tcp = sparkSubmit("spark.shuffle.rdma.transport=tcp");
    assertEquals(0, tcp.exit(), tcp.output());
    assertTrue(
        tcp.output().contains("chosen: tcp (forced by spark.shuffle.rdma.transport)"),
        tcp.output());

    Run verbs = sparkSubmit("spark.shuffle.rdma.transport=verbs");
    assertEquals(1, verbs.exit(), verbs.output());
    assertTrue(verbs.output().contains("transport verbs: unavailable"), verbs.output());

    Run bad = sparkSubmit("spark.shuffle.rdma.read.segmentSize=huge");
    assertEquals(2, bad.exit(), bad.output());
    assertTrue(bad.output().contains("spark.shuffle.rdma.read.segmentSize=huge"), bad.output());
  }
}
