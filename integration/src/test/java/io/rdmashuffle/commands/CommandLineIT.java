/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every command of {@code bin/rdma-shuffle}, as its usage lists them, answers as an operator would
 * guess: {@code --help} and {@code help COMMAND} print the same usage and exit 0; a wrong argument,
 * and no argument where the command needs one, print what was wrong and the usage and exit 2;
 * nothing prints a stack trace. The scripts under {@code integration/bin} and {@code spark-it/bin}
 * print one command's usage. The README's command table is the usage's list of commands. Runs on
 * the built tree (failsafe: after package), and never starts a job: help and argument mistakes end
 * before one would.
 */
class CommandLineIT {
  private static final Path ROOT =
      Path.of(System.getProperty("rdmashuffle.root", "..")).normalize();
  private static final String MAIN = "bin/rdma-shuffle";

  /** The result of one command line. */
  record Ran(List<String> argv, int status, String out, String err) {
    String all() {
      return "$ " + String.join(" ", argv) + " (exit " + status + ")\n" + out + err;
    }

    void assertNoStackTrace() {
      assertFalse(
          all().contains("\tat ") || all().contains("Exception in thread"),
          "stack trace printed:\n" + all());
    }
  }

  static Ran run(String script, String... args) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of("bash", script));
    argv.addAll(List.of(args));
    Path out = Files.createTempFile("cli-out", ".txt");
    Path err = Files.createTempFile("cli-err", ".txt");
    try {
      ProcessBuilder pb = new ProcessBuilder(argv).directory(ROOT.toFile());
      pb.environment().remove("REBUILD");
      pb.redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      Process p = pb.start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", argv) + ": still running after 120 s");
      }
      return new Ran(
          argv.subList(1, argv.size()),
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** The commands {@code bin/rdma-shuffle help} lists, with their one-line descriptions. */
  static Map<String, String> commands() throws Exception {
    Ran help = run(MAIN, "help");
    assertEquals(0, help.status(), help.all());
    Map<String, String> commands = new LinkedHashMap<>();
    boolean in = false;
    Pattern line = Pattern.compile("  (\\S+(?: \\S+)?)\\s{2,}(\\S.*)");
    for (String l : help.out().split("\n")) {
      if (l.equals("commands:")) {
        in = true;
      } else if (in && l.startsWith("  ")) {
        Matcher m = line.matcher(l);
        assertTrue(m.matches(), "a command line of the usage: '" + l + "'");
        commands.put(m.group(1), m.group(2).trim());
      } else {
        in = false;
      }
    }
    assertTrue(commands.size() >= 5, "commands listed:\n" + help.out());
    return commands;
  }

  static String[] words(String command, String... more) {
    List<String> w = new ArrayList<>(List.of(command.split(" ")));
    w.addAll(List.of(more));
    return w.toArray(String[]::new);
  }

  @TestFactory
  Stream<DynamicTest> everyCommandAnswersHelpMistakesAndNoArguments() throws Exception {
    List<DynamicTest> tests = new ArrayList<>();
    for (String c : commands().keySet()) {
      tests.add(
          DynamicTest.dynamicTest(
              c,
              () -> {
                Ran help = run(MAIN, words(c, "--help"));
                help.assertNoStackTrace();
                assertEquals(0, help.status(), help.all());
                String first = help.out().split("\n", 2)[0];
                assertTrue(
                    first.startsWith("usage: " + MAIN + " " + c), "usage's first line: " + first);
                Ran viaHelp = run(MAIN, words("help " + c));
                assertEquals(0, viaHelp.status(), viaHelp.all());
                assertEquals(help.out(), viaHelp.out(), "help " + c + " and " + c + " --help");

                Ran bad = run(MAIN, words(c, "--no-such-option", "1"));
                bad.assertNoStackTrace();
                assertEquals(2, bad.status(), bad.all());
                assertTrue(bad.err().contains("--no-such-option"), "says what: " + bad.all());
                assertTrue(bad.err().contains(help.out()), "prints the usage: " + bad.all());

                // a command whose usage names an argument that is not optional needs one
                String rest = first.substring(("usage: " + MAIN + " " + c).length()).trim();
                if (!rest.isEmpty() && !rest.startsWith("[")) {
                  Ran none = run(MAIN, words(c));
                  none.assertNoStackTrace();
                  assertEquals(2, none.status(), none.all());
                  assertTrue(none.err().contains(help.out()), "prints the usage: " + none.all());
                }
              }));
    }
    return tests.stream();
  }

  @Test
  void theEntryPointRejectsWhatItDoesNotKnow() throws Exception {
    Ran help = run(MAIN, "help");
    for (String[] args :
        List.of(
            new String[0],
            new String[] {"no-such-command"},
            new String[] {"bench"},
            new String[] {"bench", "no-such-benchmark"},
            new String[] {"help", "no-such"})) {
      Ran r = run(MAIN, args);
      r.assertNoStackTrace();
      assertEquals(2, r.status(), r.all());
      assertTrue(r.err().contains(help.out()), "prints the usage: " + r.all());
    }
    assertEquals(0, run(MAIN, "--help").status());
  }

  /**
   * integration/bin/* and spark-it/bin/bench-spark are aliases: each prints one command's usage.
   */
  @Test
  void theScriptsAreAliasesOfCommands() throws Exception {
    List<Path> scripts = new ArrayList<>();
    try (Stream<Path> s = Files.list(ROOT.resolve("integration/bin"))) {
      s.sorted().forEach(scripts::add);
    }
    scripts.add(ROOT.resolve("spark-it/bin/bench-spark"));
    Map<String, Ran> helps = new LinkedHashMap<>();
    for (Path script : scripts) {
      Ran r = run(ROOT.relativize(script).toString(), "--help");
      r.assertNoStackTrace();
      assertEquals(0, r.status(), r.all());
      helps.put(script.getFileName().toString(), r);
    }
    Map<String, String> usages = new LinkedHashMap<>();
    for (String c : commands().keySet()) {
      usages.put(run(MAIN, words(c, "--help")).out(), c);
    }
    helps.forEach(
        (script, r) ->
            assertTrue(
                usages.containsKey(r.out()),
                script + " --help is no command's usage:\n" + r.all()));
  }

  /** The README's command table is the usage's list, row for row. */
  @Test
  void theReadmeTableIsTheUsagesList() throws Exception {
    List<String> expected = new ArrayList<>();
    for (Map.Entry<String, String> e : commands().entrySet()) {
      expected.add("| `" + MAIN + " " + e.getKey() + "` | " + e.getValue() + " |");
    }
    List<String> table = new ArrayList<>();
    for (String l : Files.readAllLines(ROOT.resolve("README.md"))) {
      if (l.startsWith("| `" + MAIN + " ")) {
        table.add(l);
      }
    }
    assertEquals(String.join("\n", expected), String.join("\n", table));
  }
}
