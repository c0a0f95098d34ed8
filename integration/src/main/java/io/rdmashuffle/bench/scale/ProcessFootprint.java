/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * What a process holds now, read from {@code /proc/PID} as an operator would: open descriptors
 * ({@code fd/}), mappings (lines of {@code maps}), resident memory ({@code status}: {@code VmRSS},
 * its anonymous and file-backed parts {@code RssAnon} and {@code RssFile}), the CPU it used so far
 * ({@code stat}: user and system ticks of all its threads, those ended too; {@code schedstat} would
 * give only the main thread's) and its limits ({@code limits}: open files), plus the machine's
 * {@code vm.max_map_count}. Descriptors and mappings of Spark map outputs' data files ({@code
 * .../shuffle_S_M_0.data}) are also counted apart: what serving holds.
 */
public record ProcessFootprint(
    long pid,
    long fds,
    long outputFds,
    long mappings,
    long outputMappings,
    long rssBytes,
    long rssAnonBytes,
    long rssFileBytes,
    long cpuTicks) {

  /**
   * Clock ticks per second of {@code stat}'s CPU fields ({@code getconf CLK_TCK}, 100 on Linux).
   */
  public static final int TICKS_PER_SECOND = 100;

  /** The process's footprint now; empty fields (-1) for what could not be read (it ended). */
  public static ProcessFootprint of(long pid) {
    Path proc = Path.of("/proc", Long.toString(pid));
    long fds = -1;
    long outputFds = 0;
    try (Stream<Path> s = Files.list(proc.resolve("fd"))) {
      for (Path fd : (Iterable<Path>) s::iterator) {
        fds = Math.max(0, fds) + 1;
        try {
          if (isOutput(Files.readSymbolicLink(fd).toString())) {
            outputFds++;
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    } catch (IOException | RuntimeException e) {
      // ended, or not ours to read
    }
    long maps = -1;
    long outputMaps = 0;
    try (Stream<String> s = Files.lines(proc.resolve("maps"))) {
      for (String l : (Iterable<String>) s::iterator) {
        maps = Math.max(0, maps) + 1;
        if (isOutput(l)) {
          outputMaps++;
        }
      }
    } catch (IOException | RuntimeException e) {
      // as above
    }
    long rss = -1;
    long anon = -1;
    long file = -1;
    try {
      for (String l : Files.readAllLines(proc.resolve("status"))) {
        if (l.startsWith("VmRSS:")) {
          rss = kib(l);
        } else if (l.startsWith("RssAnon:")) {
          anon = kib(l);
        } else if (l.startsWith("RssFile:")) {
          file = kib(l);
        }
      }
    } catch (IOException | RuntimeException e) {
      // as above
    }
    return new ProcessFootprint(
        pid, fds, outputFds, maps, outputMaps, rss, anon, file, cpuTicks(proc));
  }

  /** Whether a descriptor's target or a mapping's line names a Spark map output's data file. */
  static boolean isOutput(String path) {
    int slash = path.lastIndexOf('/');
    return path.endsWith(".data") && path.startsWith("shuffle_", slash + 1);
  }

  private static long kib(String statusLine) {
    return Long.parseLong(statusLine.replaceAll("[^0-9]", "")) * 1024;
  }

  /** utime + stime of {@code stat} (fields 14 and 15, counted after the command's parenthesis). */
  private static long cpuTicks(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The CPU time all its threads used so far, in seconds (at 10 ms resolution). */
  public double cpuSeconds() {
    return (double) cpuTicks / TICKS_PER_SECOND;
  }

  /** The soft limit on open files of {@code pid} ({@code limits}), or -1. */
  public static long openFileLimit(long pid) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "limits"))) {
        if (l.startsWith("Max open files")) {
          List<String> f = List.of(l.substring("Max open files".length()).trim().split("\\s+"));
          return f.get(0).equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(f.get(0));
        }
      }
    } catch (IOException | RuntimeException e) {
      // ended
    }
    return -1;
  }

  /**
   * {@code vm.max_map_count}, or -1. Read by lines: {@code Files.readString} of a sysctl file can
   * return a prefix of it (it trusts the size procfs reports), "6" for 65530.
   */
  public static long maxMapCount() {
    try {
      return Long.parseLong(
          Files.readAllLines(Path.of("/proc/sys/vm/max_map_count")).get(0).trim());
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The largest of each field of {@code a} and {@code b} (CPU: the later). */
  public ProcessFootprint max(ProcessFootprint b) {
    return new ProcessFootprint(
        pid,
        Math.max(fds, b.fds),
        Math.max(outputFds, b.outputFds),
        Math.max(mappings, b.mappings),
        Math.max(outputMappings, b.outputMappings),
        Math.max(rssBytes, b.rssBytes),
        Math.max(rssAnonBytes, b.rssAnonBytes),
        Math.max(rssFileBytes, b.rssFileBytes),
        Math.max(cpuTicks, b.cpuTicks));
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%d fds (%d of map outputs), %d mappings (%d of map outputs), RSS %d MiB (anon %d, file"
            + " %d)",
        fds,
        outputFds,
        mappings,
        outputMappings,
        rssBytes >> 20,
        rssAnonBytes >> 20,
        rssFileBytes >> 20);
  }

  /** Samples a process every {@code periodMillis} on a daemon thread, keeping the peaks. */
  public static final class Sampler implements AutoCloseable {
    private final long pid;
    private final Thread thread;
    private volatile boolean stop;
    private volatile ProcessFootprint peak;
    private volatile int samples;

    public Sampler(long pid, long periodMillis) {
      this.pid = pid;
      this.peak = of(pid);
      this.thread =
          new Thread(
              () -> {
                while (!stop) {
                  ProcessFootprint f = of(pid);
                  if (f.fds() >= 0) {
                    peak = peak.max(f);
                    samples++;
                  }
                  try {
                    Thread.sleep(periodMillis);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "footprint-" + pid);
      thread.setDaemon(true);
      thread.start();
    }

    /** The peak of every field so far. */
    public ProcessFootprint peak() {
      return peak;
    }

    public int samples() {
      return samples;
    }

    public long pid() {
      return pid;
    }

    @Override
    public void close() {
      stop = true;
      thread.interrupt();
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
