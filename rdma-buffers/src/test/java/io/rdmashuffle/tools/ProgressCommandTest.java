/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A script's steps through a state file; the last run's times are the next run's estimate. */
class ProgressCommandTest {
  @TempDir Path dir;

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String run(long nowMillis, String... args) throws Exception {
    bytes.reset();
    ProgressCommand.run(args, nowMillis, out);
    return bytes.toString(StandardCharsets.UTF_8).trim();
  }

  @Test
  void stepsPrintTheStatusLineAndTheNextRunEstimatesFromThisOne() throws Exception {
    String f = dir.resolve("guest.progress").toString();
    run(0, f, "plan", "boot:bookworm", "boot:trixie", "odp");
    // nothing known yet: the mean of what ran (60 s) for each step left
    assertEquals(
        "[1/3] verbs-tests on bookworm: status 0 | elapsed 0:01:00, left ~0:02:00",
        run(60_000, f, "step", "boot:bookworm", "60", "verbs-tests on bookworm: status 0"));
    run(150_000, f, "step", "boot:trixie", "90", "trixie");
    run(180_000, f, "step", "odp", "30", "odp");

    // the next run: each step's last time
    run(0, f, "plan", "boot:bookworm", "boot:trixie", "odp");
    assertEquals(
        "[1/3] again | elapsed 0:01:10, left ~0:02:00",
        run(70_000, f, "step", "boot:bookworm", "70", "again"));
  }
}
