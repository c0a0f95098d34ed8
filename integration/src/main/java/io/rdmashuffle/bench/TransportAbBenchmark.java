/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Progress;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Two builds of the tcp transport against each other, in one process: each build's classes (the
 * integration classes and rdma-buffers' classes of that build, plus the shared dependencies) in its
 * own class loader, the same {@link OursTcpFetcher} block fetch over loopback, rounds alternating
 * between the builds, and the ratio taken per round. On a shared, loaded machine the load changes
 * between runs far more than between two neighbouring rounds, so the per-round ratio is what can be
 * compared.
 *
 * <p>{@code bin/rdma-shuffle bench transport-ab}; its arguments: {@link #USAGE}.
 */
public final class TransportAbBenchmark {
  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench transport-ab OLD_CLASS_DIRS NEW_CLASS_DIRS [ROUNDS]
        Two builds of our tcp transport against each other in one process, rounds alternating
        which build starts (9 rounds by default); the median of the per-round ratios new / old.
        Each CLASS_DIRS is INTEGRATION_CLASSES:RDMA_BUFFERS_CLASSES of one build, for example
        copies of integration/target/classes and rdma-buffers/target/classes taken before and
        after a change.
      """;

  private TransportAbBenchmark() {}

  public static void main(String[] args) {
    Cli.main("bench transport-ab", USAGE, args, TransportAbBenchmark::run);
  }

  private static int run(Cli a) throws Exception {
    String[] build = {a.positional("OLD_CLASS_DIRS"), a.positional("NEW_CLASS_DIRS")};
    int rounds = Cli.parse("ROUNDS", a.positional("ROUNDS", "9"), Integer::parseInt);
    a.done();
    for (String dirs : build) {
      for (String d : dirs.split(":")) {
        if (!Files.isDirectory(Path.of(d))) {
          throw new Cli.UsageError(dirs + ": " + d + " is no folder");
        }
      }
    }
    String deps = System.getProperty("bench.dependencies", "");
    FetchSide[] side = new FetchSide[2];
    Path dir = Files.createTempDirectory("rdma-bench-ab");
    Path file = dir.resolve("blocks");
    long size = 256L << 20;
    byte[] chunk = new byte[1 << 20];
    new Random(1).nextBytes(chunk);
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      for (long off = 0; off < size; off += chunk.length) {
        f.write(chunk);
      }
    }
    for (int i = 0; i < 2; i++) {
      side[i] = new OtherBuildFetcher(i == 0 ? "old" : "new", build[i], deps, file);
    }
    StringBuilder out =
        new StringBuilder(Machine.describe())
            .append('\n')
            .append(
                "| block | old MB/s | new MB/s | new / old: median of the per-round ratios (each round) |\n")
            .append("| --- | --- | --- | --- |\n");
    int[] blockSizes = {64 << 10, 256 << 10, 1 << 20, 4 << 20};
    List<String> steps = new ArrayList<>();
    for (int block : blockSizes) {
      steps.addAll(Collections.nCopies(2 + rounds, String.valueOf(block)));
    }
    Progress progress = Progress.onStderr(steps);
    for (int block : blockSizes) {
      int blocks = (int) (size / block);
      int passes = (int) Math.max(1, (1L << 30) / size);
      int window = (int) Math.max(1, (48L << 20) / block);
      double[][] mbps = new double[2][rounds];
      double[] ratio = new double[rounds];
      for (int r = -2; r < rounds; r++) {
        long round0 = System.nanoTime();
        for (int k = 0; k < 2; k++) {
          int s = Math.floorMod(r + k, 2); // each round starts with the other build
          long t0 = System.nanoTime();
          long bytes = side[s].fetchAll(block, blocks, passes, window);
          double x = bytes / ((System.nanoTime() - t0) / 1e9) / 1e6;
          if (r >= 0) {
            mbps[s][r] = x;
          }
        }
        if (r >= 0) {
          ratio[r] = mbps[1][r] / mbps[0][r];
        }
        progress.step(
            String.valueOf(block),
            (System.nanoTime() - round0) / 1e9,
            "bench transport-ab, "
                + (block >> 10)
                + " KiB"
                + (r < 0
                    ? " warm-up " + (r + 3) + " of 2"
                    : " round " + (r + 1) + " of " + rounds));
      }
      StringBuilder each = new StringBuilder();
      for (double x : ratio) {
        each.append(String.format(" %.2f", x));
      }
      out.append(
          String.format(
              "| %d KiB | %.0f | %.0f | %.2f (%s) |%n",
              block >> 10,
              median(mbps[0]),
              median(mbps[1]),
              median(ratio),
              each.toString().trim()));
    }
    progress.finish();
    System.out.print(out);
    return 0; // Cli.main exits: the fetchers' transports are left to the process
  }

  private static double median(double[] x) {
    double[] y = x.clone();
    Arrays.sort(y);
    return y.length % 2 == 1 ? y[y.length / 2] : (y[y.length / 2 - 1] + y[y.length / 2]) / 2;
  }
}
