/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/** A one-paragraph description of the machine a benchmark ran on, committed with its results. */
public final class Machine {
  private Machine() {}

  public static String describe() {
    String cpu = "unknown CPU";
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          cpu = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
    } catch (IOException e) {
      // keep "unknown CPU"
    }
    return "date: "
        + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)
        + "\n"
        + "cpu: "
        + cpu
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " cores\n"
        + "memory: "
        + memory()
        + "\n"
        + "os: "
        + System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + " "
        + System.getProperty("os.arch")
        + "\n"
        + "java: "
        + System.getProperty("java.vm.name")
        + " "
        + System.getProperty("java.version")
        + "\n";
  }

  private static String memory() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/meminfo"))) {
        if (line.startsWith("MemTotal")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return "unknown";
  }
}
