/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import org.apache.spark.SparkConf;

/**
 * How many tasks this process runs at once: what its READ buffer pool is shared among. {@code
 * spark.executor.cores} when set; else, in local mode, the machine's processors; else the cores the
 * executor was started with ({@code --cores} of Spark's executor backend: a standalone executor
 * without spark.executor.cores takes every core of its worker, and its configuration does not say
 * how many); else the machine's processors (the smaller share, never the larger).
 */
final class ExecutorCores {
  private ExecutorCores() {}

  static int of(SparkConf conf, boolean localMaster) {
    return of(
        conf,
        localMaster,
        System.getProperty("sun.java.command", ""),
        Runtime.getRuntime().availableProcessors());
  }

  /**
   * @param javaCommand the JVM's main class and arguments ({@code sun.java.command})
   */
  static int of(SparkConf conf, boolean localMaster, String javaCommand, int processors) {
    if (conf.contains("spark.executor.cores")) {
      return Math.max(1, conf.getInt("spark.executor.cores", 1));
    }
    if (!localMaster) {
      int started = coresArgument(javaCommand);
      if (started > 0) {
        return started;
      }
    }
    return Math.max(1, processors);
  }

  /** The value of {@code --cores} in a command line, or 0. */
  static int coresArgument(String command) {
    String[] words = command.trim().split("\\s+");
    for (int i = 0; i + 1 < words.length; i++) {
      if (words[i].equals("--cores")) {
        try {
          return Math.max(0, Integer.parseInt(words[i + 1]));
        } catch (NumberFormatException e) {
          return 0;
        }
      }
    }
    return 0;
  }
}
