/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The limits of this process and machine that bound what it may hold open, mapped and pinned:
 * {@code RLIMIT_NOFILE} and {@code RLIMIT_MEMLOCK} (soft, from {@code /proc/self/limits}), {@code
 * vm.max_map_count}, the machine's memory and this JVM's heap. Each is {@link #UNLIMITED} when
 * unlimited and {@link #UNKNOWN} when it can't be read (not Linux, a sandbox). Read once where
 * defaults are derived; the one parser of these files.
 *
 * @param openFiles RLIMIT_NOFILE, files
 * @param lockedBytes RLIMIT_MEMLOCK, bytes
 * @param maxMapCount vm.max_map_count, mappings
 * @param memoryBytes MemTotal, bytes
 * @param heapBytes the most heap this JVM will use ({@code -Xmx}), bytes
 */
public record ProcessLimits(
    long openFiles, long lockedBytes, long maxMapCount, long memoryBytes, long heapBytes) {
  public static final long UNLIMITED = Long.MAX_VALUE;
  public static final long UNKNOWN = -1;

  /** This process's and machine's limits. */
  public static ProcessLimits read() {
    return read(Paths.get("/proc"));
  }

  /** The limits as the proc file system under {@code proc} tells them (tests use a copy). */
  public static ProcessLimits read(Path proc) {
    Path limits = proc.resolve("self/limits");
    return new ProcessLimits(
        limit(limits, "Max open files"),
        limit(limits, "Max locked memory"),
        number(proc.resolve("sys/vm/max_map_count")),
        memTotal(proc.resolve("meminfo")),
        Runtime.getRuntime().maxMemory());
  }

  /** A soft limit of {@code /proc/self/limits}: {@link #UNLIMITED}, or {@link #UNKNOWN}. */
  static long limit(Path limits, String name) {
    try {
      for (String line : Files.readAllLines(limits, StandardCharsets.UTF_8)) {
        if (line.startsWith(name)) {
          String[] f = line.substring(name.length()).trim().split("\\s+");
          return f[0].equals("unlimited") ? UNLIMITED : Long.parseLong(f[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return UNKNOWN;
    }
    return UNKNOWN;
  }

  private static long number(Path file) {
    try {
      // read by lines: Files.readString takes the size a proc file reports (0) at its word, and
      // returned "6" for a max_map_count of 65530 on JDK 17
      return Long.parseLong(Files.readAllLines(file, StandardCharsets.UTF_8).get(0).trim());
    } catch (IOException | RuntimeException e) {
      return UNKNOWN;
    }
  }

  private static long memTotal(Path meminfo) {
    try {
      for (String line : Files.readAllLines(meminfo, StandardCharsets.UTF_8)) {
        if (line.startsWith("MemTotal:")) {
          String[] f = line.substring("MemTotal:".length()).trim().split("\\s+");
          return Long.parseLong(f[0]) * 1024; // kB
        }
      }
    } catch (IOException | RuntimeException e) {
      return UNKNOWN;
    }
    return UNKNOWN;
  }

  /** {@code v} as an operator reads it: "unlimited", "unknown", or the number. */
  public static String text(long v) {
    return v == UNLIMITED ? "unlimited" : v == UNKNOWN ? "unknown" : Long.toString(v);
  }
}
