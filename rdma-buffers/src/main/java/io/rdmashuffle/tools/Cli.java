/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The command line of our runners ({@code bin/rdma-shuffle COMMAND}): options {@code --name value}
 * or {@code --name=value}, flags {@code --name}, then positional arguments. {@link #run} prints the
 * runner's usage text for {@code --help} or {@code -h} (exit status 0); a mistake in the command
 * line ({@link UsageError}: an unknown, missing or malformed argument) prints what was wrong, then
 * the usage (exit status 2), never a stack trace; any other failure prints one line, and its stack
 * trace with {@code --verbose} (exit status 1). Each runner keeps its usage text in one constant
 * and passes it here: {@code --help}, {@code bin/rdma-shuffle help COMMAND} and the mistakes all
 * print that text.
 *
 * <p>Read the options and flags first, then the positional arguments, then call {@link #done()}: an
 * option's value is taken out with its name, so what is left in order is the positionals.
 */
public final class Cli {
  /** A mistake in the command line: its message says what was wrong. */
  public static final class UsageError extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UsageError(String message) {
      super(message);
    }
  }

  /** A runner's work, given its command line; returns the exit status. */
  @FunctionalInterface
  public interface Command {
    int run(Cli args) throws Exception;
  }

  private final List<String> rest;

  private Cli(List<String> args) {
    this.rest = new ArrayList<>(args);
  }

  /** A command line to read (what {@link #run} gives a command; for runners' option parsers). */
  public static Cli of(String... args) {
    return new Cli(Arrays.asList(args));
  }

  /** {@link #run} on the process's streams, then exits with its status. */
  public static void main(String name, String usage, String[] args, Command command) {
    System.exit(run(name, usage, args, System.out, System.err, command));
  }

  /**
   * Runs {@code command} on {@code args}; returns the exit status. {@code name} prefixes the
   * messages ({@code bench transport: unknown argument --x}).
   */
  public static int run(
      String name, String usage, String[] args, PrintStream out, PrintStream err, Command command) {
    List<String> list = new ArrayList<>(Arrays.asList(args));
    // what follows "--" is another command's
    List<String> ours = list.contains("--") ? list.subList(0, list.indexOf("--")) : list;
    if (ours.contains("--help") || ours.contains("-h")) {
      out.print(usage);
      return 0;
    }
    boolean verbose = ours.remove("--verbose");
    try {
      return command.run(new Cli(list));
    } catch (UsageError e) {
      err.println(name + ": " + e.getMessage());
      err.println();
      err.print(usage);
      return 2;
    } catch (Exception e) {
      if (verbose) {
        e.printStackTrace(err);
      } else {
        err.println(name + " failed: " + e);
        err.println("(--verbose prints where)");
      }
      return 1;
    }
  }

  /** The value of {@code --name} (the last one given), or {@code fallback}. */
  public String option(String name, String fallback) {
    List<String> all = all(name);
    return all.isEmpty() ? fallback : all.get(all.size() - 1);
  }

  /** Every value of {@code --name}, in order ({@code --set a=1 --set b=2}). */
  public List<String> all(String name) {
    String flag = "--" + name;
    List<String> values = new ArrayList<>();
    for (int i = 0; i < ours(); ) {
      String a = rest.get(i);
      if (a.equals(flag)) {
        if (i + 1 == ours()) {
          throw new UsageError(flag + " needs a value");
        }
        values.add(rest.remove(i + 1));
        rest.remove(i);
      } else if (a.startsWith(flag + "=")) {
        values.add(rest.remove(i).substring(flag.length() + 1));
      } else {
        i++;
      }
    }
    return values;
  }

  /** How many of the arguments left are ours: those before {@code --}. */
  private int ours() {
    int dashes = rest.indexOf("--");
    return dashes < 0 ? rest.size() : dashes;
  }

  /**
   * The value of {@code --name} read with {@code parse}, or {@code fallback}; a value {@code parse}
   * rejects (any runtime exception) is a {@link UsageError}.
   */
  public <T> T option(String name, T fallback, Function<String, T> parse) {
    String v = option(name, null);
    return v == null ? fallback : parse("--" + name, v, parse);
  }

  /**
   * {@code value} read with {@code parse}; a value {@code parse} rejects (any runtime exception) is
   * a {@link UsageError} naming {@code what}.
   */
  public static <T> T parse(String what, String value, Function<String, T> parse) {
    try {
      return parse.apply(value.trim());
    } catch (UsageError e) {
      throw new UsageError(what + " " + e.getMessage());
    } catch (RuntimeException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new UsageError(what + " " + value + ": " + why);
    }
  }

  public int intOption(String name, int fallback) {
    return option(name, fallback, Integer::parseInt);
  }

  /** Whether {@code --name} was given. */
  public boolean flag(String name) {
    boolean given = false;
    for (int i = ours() - 1; i >= 0; i--) {
      if (rest.get(i).equals("--" + name)) {
        rest.remove(i);
        given = true;
      }
    }
    return given;
  }

  /** The next positional argument; a {@link UsageError} naming {@code what} when there is none. */
  public String positional(String what) {
    String v = positional(what, null);
    if (v == null) {
      throw new UsageError("missing " + what);
    }
    return v;
  }

  /**
   * The next positional argument, or {@code fallback} when none is left; an option left before it
   * is unknown (the options were read before).
   */
  public String positional(String what, String fallback) {
    if (rest.isEmpty()) {
      return fallback;
    }
    if (rest.get(0).startsWith("--") && !rest.get(0).equals("--")) {
      throw new UsageError("unknown argument " + rest.get(0));
    }
    return rest.remove(0);
  }

  /** All that is left, as given (a command line to pass on, after {@code --}). */
  public List<String> remaining() {
    List<String> all = List.copyOf(rest);
    rest.clear();
    return all;
  }

  /**
   * {@code 64k}, {@code 768m}, {@code 2g} (binary units) or a plain number of bytes; for {@link
   * #option(String, Object, Function)}.
   */
  public static long bytes(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    int shift =
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
          case 'k' -> 10;
          case 'm' -> 20;
          case 'g' -> 30;
          default -> 0;
        };
    String n = shift == 0 ? t : t.substring(0, t.length() - 1);
    if (!n.matches("\\d+")) {
      throw new UsageError(text + ": not a size (a number of bytes, or with k, m or g)");
    }
    return Math.multiplyExact(Long.parseLong(n), 1L << shift);
  }

  /** Fails on anything no one read. */
  public void done() {
    if (!rest.isEmpty()) {
      throw new UsageError(
          (rest.size() == 1 ? "unknown argument " : "unknown arguments ") + String.join(" ", rest));
    }
  }
}
