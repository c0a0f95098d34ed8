/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CliTest {
  private static final String USAGE = "usage: thing [--n 1] [--size 1m] [--x] A [B]\n";

  /** Exit status, standard output and standard error of {@link Cli#run}. */
  private static String[] run(Cli.Command c, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Cli.run(
            "thing",
            USAGE,
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            c);
    return new String[] {
      String.valueOf(status),
      out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8)
    };
  }

  @Test
  void optionsFlagsAndPositionalsInAnyOrder() {
    Cli a = Cli.of("A", "--n", "3", "--x", "--size=2k", "B", "--n", "4");
    assertEquals(4, a.intOption("n", 1));
    assertEquals(2048L, a.option("size", 1L, Cli::bytes));
    assertTrue(a.flag("x"));
    assertFalse(a.flag("y"));
    assertEquals("A", a.positional("A"));
    assertEquals("B", a.positional("B", "b"));
    assertEquals("c", a.positional("C", "c"));
    a.done();
  }

  @Test
  void repeatedOptionsAndWhatFollowsDashesIsNotOurs() {
    Cli a = Cli.of("--set", "a=1", "--set", "b=2", "h2", "--", "ls", "--set", "x", "--help");
    assertEquals(List.of("a=1", "b=2"), a.all("set"));
    assertEquals(List.of("h2", "--", "ls", "--set", "x", "--help"), a.remaining());
    a.done();
    String[] r = run(c -> c.remaining().size(), "h2", "--", "cmd", "--help");
    assertEquals("4", r[0], "--help after -- is the other command's: " + r[1]);
  }

  @Test
  void mistakesNameWhatIsWrong() {
    assertEquals(
        "unknown arguments --nope 1",
        assertThrows(Cli.UsageError.class, () -> Cli.of("--nope", "1").done()).getMessage());
    assertEquals(
        "--n needs a value",
        assertThrows(Cli.UsageError.class, () -> Cli.of("--n").intOption("n", 1)).getMessage());
    assertTrue(
        assertThrows(Cli.UsageError.class, () -> Cli.of("--n", "x").intOption("n", 1))
            .getMessage()
            .startsWith("--n x: "));
    assertTrue(
        assertThrows(
                Cli.UsageError.class, () -> Cli.of("--size", "3q").option("size", 1L, Cli::bytes))
            .getMessage()
            .startsWith("--size 3q: not a size"));
    assertEquals(
        "missing A",
        assertThrows(Cli.UsageError.class, () -> Cli.of().positional("A")).getMessage());
    assertEquals(
        "unknown argument --x",
        assertThrows(Cli.UsageError.class, () -> Cli.of("--x", "A").positional("A")).getMessage());
    assertEquals(3L << 30, Cli.bytes("3g"));
    assertEquals(100L, Cli.bytes("100"));
  }

  @Test
  void helpPrintsTheUsageAndExitsZero() {
    String[] r = run(c -> 7, "A", "--help");
    assertEquals("0", r[0]);
    assertEquals(USAGE, r[1]);
    assertEquals("", r[2]);
    assertEquals("0", run(c -> 7, "-h")[0]);
  }

  @Test
  void aMistakeSaysWhatThenTheUsageAndExitsTwo() {
    String[] r =
        run(
            c -> {
              c.positional("A");
              c.done();
              return 0;
            },
            "A",
            "--bogus");
    assertEquals("2", r[0]);
    assertEquals("thing: unknown argument --bogus\n\n" + USAGE, r[2]);
    assertFalse(r[2].contains("\tat "), r[2]);
  }

  @Test
  void aFailureIsOneLineAndItsStackTraceOnlyWithVerbose() {
    Cli.Command boom =
        c -> {
          c.done();
          throw new IllegalStateException("boom");
        };
    String[] r = run(boom);
    assertEquals("1", r[0]);
    assertEquals(
        "thing failed: java.lang.IllegalStateException: boom\n(--verbose prints where)\n", r[2]);
    String[] v = run(boom, "--verbose");
    assertEquals("1", v[0]);
    assertTrue(v[2].contains("\tat io.rdmashuffle.tools.CliTest"), v[2]);
  }

  @Test
  void theCommandsStatusIsTheExitStatus() {
    assertEquals("5", run(c -> 5)[0]);
  }
}
