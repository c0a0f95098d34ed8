/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The launcher's child processes (data generation, one per application): each runs to its end with
 * its output in a log and, line by line, to a handler; one that made no progress for the stall
 * timeout is killed with everything it started.
 */
final class Children {
  private final PrintStream out;
  private final long stallTimeoutSeconds;
  private final List<Process> running = new ArrayList<>();

  Children(PrintStream out, long stallTimeoutSeconds) {
    this.out = out;
    this.stallTimeoutSeconds = stallTimeoutSeconds;
  }

  /** A line handler for a child's output. */
  @FunctionalInterface
  interface LineHandler {
    void line(String line);
  }

  /**
   * Runs one child to its end: its output goes to the log, every line also to the handler. A child
   * whose {@code lastProgress} is older than the stall timeout is killed.
   */
  int run(ProcessBuilder pb, Path log, LineHandler handler, AtomicLong lastProgress)
      throws IOException, InterruptedException {
    pb.redirectErrorStream(true);
    Process p = pb.start();
    synchronized (running) {
      running.add(p);
    }
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                  PrintWriter w =
                      new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
                w.println("# " + String.join(" ", pb.command()));
                String line;
                while ((line = in.readLine()) != null) {
                  w.println(line);
                  w.flush();
                  handler.line(line);
                }
              } catch (IOException | RuntimeException e) {
                if (p
                    .isAlive()) { // after a kill the stream closes under the reader: nothing to say
                  out.println("reading the output of " + log.getFileName() + " failed: " + e);
                }
              }
            },
            "tpcds-child-output");
    reader.setDaemon(true);
    reader.start();
    long stallNanos = TimeUnit.SECONDS.toNanos(stallTimeoutSeconds);
    while (!p.waitFor(5, TimeUnit.SECONDS)) {
      if (stallTimeoutSeconds > 0 && System.nanoTime() - lastProgress.get() > stallNanos) {
        out.println(
            log.getFileName()
                + ": no query finished for "
                + stallTimeoutSeconds
                + " s, killing it");
        kill(p);
        break;
      }
    }
    int code = p.waitFor();
    reader.join(TimeUnit.SECONDS.toMillis(30));
    synchronized (running) {
      running.remove(p);
    }
    return code;
  }

  /** Ends every child still running (the launcher's shutdown hook). */
  void killAll() {
    synchronized (running) {
      for (Process p : running) {
        kill(p);
      }
    }
  }

  /** Ends a child and everything it started (local-cluster executors are its children). */
  private static void kill(Process p) {
    List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
    p.destroy();
    tree.forEach(ProcessHandle::destroy);
    try {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }
}
