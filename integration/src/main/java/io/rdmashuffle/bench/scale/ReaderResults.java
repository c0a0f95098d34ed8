/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * What one reading process did ({@link ScaleReader}): tasks run and failed, blocks expected and
 * read, bytes, blocks that differed from the files, the most tasks running at once, the time, the
 * block readers' counters ({@code locates}, {@code busyAnswers}, {@code fetchFailures.*}, ...) and
 * the first failures' messages. Written as a properties file for the test or benchmark that started
 * the process.
 */
public record ReaderResults(
    int tasks,
    int failedTasks,
    long expectedBlocks,
    long blocks,
    long bytes,
    long mismatches,
    int maxRunning,
    double seconds,
    Map<String, Long> counters,
    List<String> failures) {

  public String summary() {
    return String.format(
        Locale.ROOT,
        "%d tasks (%d failed, at most %d at once), %d of %d blocks, %d bytes, %d differing, in %.1f"
            + " s; %s%s",
        tasks,
        failedTasks,
        maxRunning,
        blocks,
        expectedBlocks,
        bytes,
        mismatches,
        seconds,
        counters,
        failures.isEmpty() ? "" : "\nfirst failures:\n  " + String.join("\n  ", failures));
  }

  public void write(Path file) throws IOException {
    Properties p = new Properties();
    p.setProperty("tasks", Integer.toString(tasks));
    p.setProperty("failedTasks", Integer.toString(failedTasks));
    p.setProperty("expectedBlocks", Long.toString(expectedBlocks));
    p.setProperty("blocks", Long.toString(blocks));
    p.setProperty("bytes", Long.toString(bytes));
    p.setProperty("mismatches", Long.toString(mismatches));
    p.setProperty("maxRunning", Integer.toString(maxRunning));
    p.setProperty("seconds", Double.toString(seconds));
    counters.forEach((k, v) -> p.setProperty("counter." + k, Long.toString(v)));
    for (int i = 0; i < failures.size(); i++) {
      p.setProperty("failure." + i, failures.get(i));
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      p.store(w, "scale reader results");
    }
    Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  public static ReaderResults read(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    Map<String, Long> counters = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    for (String k : new java.util.TreeSet<>(p.stringPropertyNames())) {
      if (k.startsWith("counter.")) {
        counters.put(k.substring("counter.".length()), Long.parseLong(p.getProperty(k)));
      } else if (k.startsWith("failure.")) {
        failures.add(p.getProperty(k));
      }
    }
    return new ReaderResults(
        Integer.parseInt(p.getProperty("tasks")),
        Integer.parseInt(p.getProperty("failedTasks")),
        Long.parseLong(p.getProperty("expectedBlocks")),
        Long.parseLong(p.getProperty("blocks")),
        Long.parseLong(p.getProperty("bytes")),
        Long.parseLong(p.getProperty("mismatches")),
        Integer.parseInt(p.getProperty("maxRunning")),
        Double.parseDouble(p.getProperty("seconds")),
        counters,
        failures);
  }

  /** The sum of several processes' results (their times: the longest). */
  public static ReaderResults sum(List<ReaderResults> all) {
    int tasks = 0;
    int failed = 0;
    long expected = 0;
    long blocks = 0;
    long bytes = 0;
    long mismatches = 0;
    int running = 0;
    double seconds = 0;
    Map<String, Long> counters = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    for (ReaderResults r : all) {
      tasks += r.tasks;
      failed += r.failedTasks;
      expected += r.expectedBlocks;
      blocks += r.blocks;
      bytes += r.bytes;
      mismatches += r.mismatches;
      running += r.maxRunning;
      seconds = Math.max(seconds, r.seconds);
      r.counters.forEach((k, v) -> counters.merge(k, v, Long::sum));
      failures.addAll(r.failures);
    }
    return new ReaderResults(
        tasks, failed, expected, blocks, bytes, mismatches, running, seconds, counters, failures);
  }

  /** A block readers' counter, 0 when absent. */
  public long counter(String name) {
    return counters.getOrDefault(name, 0L);
  }
}
