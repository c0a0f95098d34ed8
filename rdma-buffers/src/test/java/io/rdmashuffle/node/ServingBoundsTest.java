/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.ProcessLimits;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.serve.OutputCatalog;
import io.rdmashuffle.testing.TestSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The serving bounds an operator did not set are derived from the process's limits. */
class ServingBoundsTest {
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;

  @TempDir Path proc;

  private ProcessLimits proc(String openFiles, String memlock, String maxMapCount, long memKb)
      throws Exception {
    Files.createDirectories(proc.resolve("self"));
    Files.createDirectories(proc.resolve("sys/vm"));
    Files.writeString(
        proc.resolve("self/limits"),
        "Limit                     Soft Limit           Hard Limit           Units     \n"
            + "Max open files            "
            + openFiles
            + "                "
            + openFiles
            + "                files     \n"
            + "Max locked memory         "
            + memlock
            + "              "
            + memlock
            + "              bytes     \n");
    Files.writeString(proc.resolve("sys/vm/max_map_count"), maxMapCount + "\n");
    Files.writeString(proc.resolve("meminfo"), "MemTotal:       " + memKb + " kB\nMemFree: 1 kB\n");
    return ProcessLimits.read(proc);
  }

  @Test
  void theProcLimitsAreReadAsTheKernelWritesThem() throws Exception {
    ProcessLimits l = proc("1048576", "unlimited", "65530", 24 * 1024 * 1024);
    assertEquals(1_048_576, l.openFiles());
    assertEquals(ProcessLimits.UNLIMITED, l.lockedBytes());
    assertEquals(65_530, l.maxMapCount());
    assertEquals(24 * GIB, l.memoryBytes());
    assertEquals(
        new ProcessLimits(-1, -1, -1, -1, Runtime.getRuntime().maxMemory()),
        ProcessLimits.read(proc.resolve("missing")),
        "unknown, but the heap");
  }

  @Test
  void unsetBoundsAreDerivedAndSaidSetOnesAreKept() throws Exception {
    ProcessLimits machine = proc("20000", "8388608", "65530", 16 * 1024 * 1024);
    RdmaConf conf = RdmaConf.of(TestSchema.SPARK_KEYS, Map.of());
    ServingBounds b = ServingBounds.derive(conf, machine, false);
    OutputCatalog.Limits l = b.limits();
    assertEquals(10_000, l.maxOpenOutputs(), "half the open-file limit, below max_map_count/4");
    assertEquals(7_500, l.maxOpenOutputsPerApplication(), "three quarters on a shared server");
    assertEquals(64 * MIB, l.maxPinnedBytes(), "an 8 MiB memlock limit: the least bound");
    assertTrue(b.explanation().contains("RLIMIT_NOFILE=20000"), b.explanation());
    assertTrue(b.explanation().contains("vm.max_map_count=65530"), b.explanation());

    // a NodeManager of 192 MiB: the partition tables of its registered outputs get 48 MiB
    ProcessLimits nodeManager =
        new ProcessLimits(
            machine.openFiles(),
            machine.lockedBytes(),
            machine.maxMapCount(),
            machine.memoryBytes(),
            192 * MIB);
    ServingBounds nm = ServingBounds.derive(conf, nodeManager, false);
    assertEquals(48 * MIB, nm.limits().maxTableBytes(), "a quarter of the heap");
    assertTrue(nm.explanation().contains("serve.maxTableBytes=" + 48 * MIB), nm.explanation());

    ProcessLimits big = proc("1048576", "unlimited", "65530", 64 * 1024 * 1024);
    l = ServingBounds.derive(conf, big, true).limits();
    assertEquals(65_530 / 4, l.maxOpenOutputs(), "a quarter of max_map_count");
    assertEquals(16 * GIB, l.maxPinnedBytes(), "a quarter of the memory when memlock is unlimited");

    RdmaConf set =
        RdmaConf.of(
            TestSchema.SPARK_KEYS,
            Map.of(
                "spark.shuffle.rdma.serve.maxOpenOutputs", "300",
                "spark.shuffle.rdma.serve.maxPinnedBytes", "1g",
                "spark.shuffle.rdma.serve.maxOpenOutputsPerApplication", "100",
                "spark.shuffle.rdma.serve.maxTableBytes", "32m"));
    ServingBounds kept = ServingBounds.derive(set, machine, false);
    assertEquals(300, kept.limits().maxOpenOutputs());
    assertEquals(100, kept.limits().maxOpenOutputsPerApplication());
    assertEquals(GIB, kept.limits().maxPinnedBytes());
    assertEquals(32 * MIB, kept.limits().maxTableBytes());
    assertEquals("", kept.explanation(), "nothing derived, nothing said");
  }
}
