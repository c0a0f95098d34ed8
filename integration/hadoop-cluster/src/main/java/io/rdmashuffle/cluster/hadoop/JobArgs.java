/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.hadoop;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of {@link ClusterJob} once Hadoop's generic options are taken off. */
record JobArgs(
    String job, Path report, int reducers, String name, List<String> inputs, String output) {

  static JobArgs parse(String[] args) {
    if (args.length == 0) {
      throw new IllegalArgumentException("no job named");
    }
    String job = args[0];
    Path report = null;
    int reducers = 2;
    String name = null;
    List<String> paths = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--report" -> report = Path.of(value(args, ++i, "--report"));
        case "--reducers" -> reducers = Integer.parseInt(value(args, ++i, "--reducers"));
        case "--name" -> name = value(args, ++i, "--name");
        default -> paths.add(args[i]);
      }
    }
    if (report == null) {
      throw new IllegalArgumentException("--report FILE is missing");
    }
    if (paths.size() < 2) {
      throw new IllegalArgumentException("an input and an output are needed, got " + paths);
    }
    if (reducers < 1) {
      throw new IllegalArgumentException("--reducers=" + reducers + ": must be at least 1");
    }
    return new JobArgs(
        job,
        report,
        reducers,
        name == null ? job : name,
        List.copyOf(paths.subList(0, paths.size() - 1)),
        paths.get(paths.size() - 1));
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
