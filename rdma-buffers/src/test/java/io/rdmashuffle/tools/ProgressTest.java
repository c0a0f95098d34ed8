/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  @Test
  void theEstimateTakesEachKeysLastTimeOrTheMean() {
    Progress p = new Progress(List.of("a", "b", "a", "b", "c"), out, false, 0);
    assertEquals(50, p.secondsLeft(), 1e-9); // nothing ran: 10 s each
    p.record("a", 4);
    p.record("b", 8);
    // a 4 s, b 8 s, c the mean of 4 and 8
    assertEquals(4 + 8 + 6, p.secondsLeft(), 1e-9);
    assertEquals(
        "[2/5] round 1 of 2 | elapsed 0:00:12, left ~0:00:20",
        p.status("round 1 of 2", 12_000_000_000L, 2));
    p.skip(10);
    assertEquals(5, p.done());
    assertEquals(0, p.secondsLeft(), 1e-9);
    assertEquals("1:01:01", Progress.clock(3661));
  }

  @Test
  void plainLinesOffATerminalOneUpdatingLineOnIt() {
    Progress plain = new Progress(List.of("a", "a"), out, false, System.nanoTime());
    plain.step("a", 1, "first");
    plain.step("a", 1, "second");
    plain.finish();
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(2, text.split("\n").length, text);
    assertEquals(-1, text.indexOf('\r'), text);

    bytes.reset();
    Progress updating = new Progress(List.of("a", "a"), out, true, System.nanoTime());
    updating.step("a", 1, "first");
    updating.step("a", 1, "second");
    assertEquals(-1, bytes.toString(StandardCharsets.UTF_8).indexOf('\n'));
    updating.finish();
    String line = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(2, line.split("\r").length - 1, line);
    assertEquals('\n', line.charAt(line.length() - 1));
  }
}
