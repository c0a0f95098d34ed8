/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.serve.MetaFiles;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Executors often get SIGTERM before anyone calls stop(): the node's shutdown hook withdraws what
 * it registered (the meta file it wrote is gone afterwards).
 */
@Timeout(120)
class ShutdownHookTest {
  @TempDir Path dir;

  /** The child process: publishes a map output, says so, and waits to be terminated. */
  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]);
    Files.write(data, new byte[1000]);
    RdmaConf conf = RdmaConf.of(SparkConfig.SCHEMA, Map.of("spark.shuffle.rdma.transport", "tcp"));
    SparkNode node =
        SparkNode.start(
            conf,
            "app-hook",
            "shutdown-hook-secret-0123456789".getBytes(StandardCharsets.UTF_8),
            "127.0.0.1",
            false);
    node.publish(1, 1, data, new long[] {400, 600}, null, null);
    System.out.println("published");
    System.out.flush();
    Thread.sleep(60_000);
  }

  @Test
  void sigtermBeforeStopStillWithdrawsEverything() throws Exception {
    Path data = dir.resolve("shuffle_1_1_0.data");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                ShutdownHookTest.class.getName(),
                data.toString())
            .redirectErrorStream(true)
            .start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null && !line.equals("published")) {
        // the child's log lines
      }
      assertEquals("published", line);
      assertTrue(Files.exists(MetaFiles.pathFor(data)));
      p.destroy(); // SIGTERM, as a cluster manager sends it
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    }
    assertFalse(
        Files.exists(MetaFiles.pathFor(data)),
        "the meta file outlived the process: the shutdown hook did not run");
    assertEquals(
        List.of(data.getFileName().toString()),
        Files.list(dir).map(f -> f.getFileName().toString()).toList());
  }
}
