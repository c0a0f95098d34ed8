/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProcessFootprintTest {
  /**
   * A serving process's work runs on its pool threads while its main thread waits: the CPU the
   * benchmark reports must be every thread's (it read the main thread's schedstat and reported 0.00
   * cores for a server answering 2,500 READs a second).
   */
  @Test
  void cpuIsEveryThreadsNotTheMainThreads() throws Exception {
    long self = ProcessHandle.current().pid();
    ProcessFootprint before = ProcessFootprint.of(self);
    Thread spinner =
        new Thread(
            () -> {
              long end = System.nanoTime() + 600_000_000L;
              long x = 0;
              while (System.nanoTime() < end) {
                x += System.nanoTime() & 1;
              }
              if (x == 42) {
                System.out.print("");
              }
            });
    spinner.start();
    spinner.join();
    ProcessFootprint after = ProcessFootprint.of(self);
    // 0.6 s of spinning: at least 0.2 s of CPU even on a loaded 2-core machine
    assertTrue(
        after.cpuSeconds() - before.cpuSeconds() >= 0.2,
        "CPU seen: " + (after.cpuSeconds() - before.cpuSeconds()) + " s");
  }

  @Test
  void countsDescriptorsAndMappingsOfThisProcess() {
    ProcessFootprint f = ProcessFootprint.of(ProcessHandle.current().pid());
    assertTrue(f.fds() > 0 && f.mappings() > 0 && f.rssBytes() > 0, f.toString());
  }
}
