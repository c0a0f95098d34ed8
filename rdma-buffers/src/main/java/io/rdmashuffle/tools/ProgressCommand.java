/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * {@link Progress} for shell scripts whose steps each take minutes (the Soft-RoCE guest boots of
 * {@code bin/run-tests} and {@code integration/softroce/*.sh}): the plan and the steps done so far
 * live in a state file, and each step prints the same status line a Java runner prints. The time
 * each step took is kept beside it ({@code FILE.history}) and is the next run's estimate.
 *
 * <pre>
 * java -cp rdma-buffers/target/classes io.rdmashuffle.tools.ProgressCommand FILE plan KEY...
 * java -cp ... io.rdmashuffle.tools.ProgressCommand FILE step KEY SECONDS WHAT...
 * </pre>
 */
public final class ProgressCommand {
  private ProgressCommand() {}

  public static void main(String[] args) {
    try {
      run(args, System.currentTimeMillis(), System.err);
    } catch (IOException | RuntimeException e) {
      // progress is a courtesy: a script never fails for it
      System.err.println("progress: " + e.getMessage());
    }
  }

  static void run(String[] args, long nowMillis, PrintStream out) throws IOException {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: FILE plan KEY... | FILE step KEY SECONDS WHAT...");
    }
    Path file = Path.of(args[0]);
    Path history = Path.of(args[0] + ".history");
    Properties state = load(file);
    switch (args[1]) {
      case "plan" -> {
        state.clear();
        state.setProperty("keys", String.join("\n", Arrays.asList(args).subList(2, args.length)));
        state.setProperty("start", Long.toString(nowMillis));
        store(state, file);
      }
      case "step" -> {
        if (args.length < 4) {
          throw new IllegalArgumentException("step needs KEY SECONDS WHAT");
        }
        String key = args[2];
        double seconds = Double.parseDouble(args[3]);
        String what =
            args.length > 4 ? String.join(" ", Arrays.asList(args).subList(4, args.length)) : key;
        List<String> keys = List.of(state.getProperty("keys", key).split("\n"));
        long start = Long.parseLong(state.getProperty("start", Long.toString(nowMillis)));
        long startNanos = System.nanoTime() - (nowMillis - start) * 1_000_000L;
        Progress p = new Progress(keys, out, false, startNanos);
        Properties past = load(history);
        past.stringPropertyNames()
            .forEach(k -> p.expect(k, Double.parseDouble(past.getProperty(k))));
        List<String> done = new ArrayList<>();
        for (int i = 0; state.containsKey("done." + i); i++) {
          String[] d = state.getProperty("done." + i).split(" ", 2);
          p.record(d[1], Double.parseDouble(d[0]));
          done.add(d[1]);
        }
        p.step(key, seconds, what);
        state.setProperty("done." + done.size(), seconds + " " + key);
        store(state, file);
        past.setProperty(key, Double.toString(seconds));
        store(past, history);
      }
      default -> throw new IllegalArgumentException("unknown step " + args[1] + " (plan, step)");
    }
  }

  /**
   * The step times a run kept in {@code file} (key to seconds), for {@link Progress#expect}; empty
   * when there is none or it can't be read.
   */
  public static java.util.Map<String, Double> times(Path file) {
    java.util.Map<String, Double> out = new java.util.HashMap<>();
    try {
      Properties p = load(file);
      p.stringPropertyNames().forEach(k -> out.put(k, Double.parseDouble(p.getProperty(k))));
    } catch (IOException | RuntimeException e) {
      return out;
    }
    return out;
  }

  /** Keeps {@code times} in {@code file} for the next run (best effort). */
  public static void keepTimes(Path file, java.util.Map<String, Double> times) {
    try {
      Properties p = load(file);
      times.forEach((k, v) -> p.setProperty(k, Double.toString(v)));
      store(p, file);
    } catch (IOException | RuntimeException e) {
      // the next run estimates without them
    }
  }

  private static Properties load(Path file) throws IOException {
    Properties p = new Properties();
    if (Files.exists(file)) {
      try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(r);
      }
    }
    return p;
  }

  private static void store(Properties p, Path file) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(w, "io.rdmashuffle.tools.ProgressCommand");
    }
  }
}
