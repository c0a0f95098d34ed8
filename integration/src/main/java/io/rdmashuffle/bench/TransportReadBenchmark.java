/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.tools.Progress;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Side-by-side throughput of fetching blocks of a file over loopback: our tcp transport (one-sided
 * READs from the mapped, registered file) against Spark's network stack (TransportServer serving
 * file segments to a TransportClient) and a bare request/sendfile loop on one TCP connection
 * ({@link RawSendfileFetcher}), in one process, rotating rounds, medians reported. Both keep the
 * same window of requests in flight: Spark's default {@code spark.reducer.maxSizeInFlight} (48m)
 * divided by the block size.
 *
 * <p>With {@code --compare NAME=CLASS_DIRS} a fourth side is our tcp transport of another build
 * ({@link OtherBuildFetcher}; {@code CLASS_DIRS} is {@code
 * integration-classes:rdma-buffers-classes} of that build), so an earlier build's ratio against
 * Spark is measured in the same run.
 *
 * <p>{@code bin/rdma-shuffle bench transport}; its arguments: {@link #USAGE}.
 */
public final class TransportReadBenchmark {
  private TransportReadBenchmark() {}

  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench transport [--sizes 64k,256k,1m,4m] [--file 256m] [--rounds 7]
                 [--warmup 2] [--bytes-per-round 1g] [--compare NAME=CLASS_DIRS] [--out FILE]
        Block fetch throughput over loopback, in one process, rounds rotating which side starts:
        our tcp transport, Spark's network stack and a bare request/sendfile loop; medians.
        --compare adds our tcp transport of another build (CLASS_DIRS:
        INTEGRATION_CLASSES:RDMA_BUFFERS_CLASSES of that build). The report goes to standard
        output and to --out.
      """;

  public static void main(String[] args) {
    Cli.main("bench transport", USAGE, args, TransportReadBenchmark::run);
  }

  private static int run(Cli a) throws Exception {
    long[] sizes =
        a.option(
            "sizes",
            new long[] {64 << 10, 256 << 10, 1 << 20, 4 << 20},
            v -> Arrays.stream(v.split(",")).mapToLong(Cli::bytes).toArray());
    long fileSize = a.option("file", 256L << 20, Cli::bytes);
    long perRound = a.option("bytes-per-round", 1L << 30, Cli::bytes);
    int rounds = a.intOption("rounds", 7);
    int warmup = a.intOption("warmup", 2);
    Path out = a.option("out", null, Paths::get);
    String compare = a.option("compare", null);
    a.done();
    Path dir = Files.createTempDirectory("rdma-bench");
    Path file = dir.resolve("blocks");
    writeFile(file, fileSize);
    StringBuilder report = new StringBuilder();
    report.append(
        "# Block fetch throughput over loopback: rdma-shuffle tcp vs Spark network-common\n\n");
    report.append(Machine.describe());
    report
        .append("file: ")
        .append(fileSize >> 20)
        .append(" MiB in the page cache; ")
        .append(perRound >> 20)
        .append(" MiB fetched per round; ")
        .append(rounds)
        .append(" measured rounds per side after ")
        .append(warmup)
        .append(" warm-up rounds, each round starting with the next side;")
        .append(" window: 48 MiB in flight\n\n");
    try (FetchSide ours = new OursTcpFetcher(file);
        FetchSide spark = new SparkNetworkFetcher(file);
        FetchSide raw = new RawSendfileFetcher(file);
        FetchSide other = compare == null ? null : otherBuild(compare, file)) {
      StringBuilder roundRatios = new StringBuilder();
      FetchSide[] sides =
          other == null
              ? new FetchSide[] {ours, spark, raw}
              : new FetchSide[] {ours, spark, raw, other};
      report
          .append("| block | ")
          .append(ours.name())
          .append(" MB/s | ")
          .append(spark.name())
          .append(" MB/s | ")
          .append(raw.name())
          .append(" MB/s | ratio | ours / bare |");
      if (other != null) {
        report.append(" ").append(other.name()).append(" MB/s | its ratio |");
      }
      report
          .append("\n| --- | --- | --- | --- | --- | --- |")
          .append(other == null ? "" : " --- | --- |")
          .append('\n');
      List<String> steps = new ArrayList<>();
      for (long size : sizes) {
        steps.addAll(Collections.nCopies(warmup + rounds, human(size)));
      }
      Progress progress = Progress.onStderr(steps);
      for (long size : sizes) {
        int blockSize = (int) size;
        int blocks = (int) (fileSize / blockSize);
        int passes = (int) Math.max(1, perRound / fileSize);
        int window = (int) Math.max(1, TransportReadBenchmark.window(blockSize, 48L << 20));
        double[][] mbps = new double[sides.length][rounds];
        for (int r = -warmup; r < rounds; r++) {
          long t0 = System.nanoTime();
          // each round starts with the next side, so none always runs first
          for (int k = 0; k < sides.length; k++) {
            int side = Math.floorMod(r + k, sides.length);
            double x = measure(sides[side], blockSize, blocks, passes, window);
            if (r >= 0) {
              mbps[side][r] = x;
            }
          }
          progress.step(
              human(blockSize),
              (System.nanoTime() - t0) / 1e9,
              "bench transport, "
                  + human(blockSize)
                  + (r < 0
                      ? " warm-up " + (r + warmup + 1) + " of " + warmup
                      : " round " + (r + 1) + " of " + rounds));
        }
        double ma = median(mbps[0]);
        double mb = median(mbps[1]);
        double mc = median(mbps[2]);
        String row =
            String.format(
                "| %s | %.0f (%.0f..%.0f) | %.0f (%.0f..%.0f)"
                    + " | %.0f (%.0f..%.0f) | %.2f | %.2f |",
                human(blockSize),
                ma,
                min(mbps[0]),
                max(mbps[0]),
                mb,
                min(mbps[1]),
                max(mbps[1]),
                mc,
                min(mbps[2]),
                max(mbps[2]),
                ma / mb,
                ma / mc);
        if (other != null) {
          double md = median(mbps[3]);
          row +=
              String.format(" %.0f (%.0f..%.0f) | %.2f |", md, min(mbps[3]), max(mbps[3]), md / mb);
        }
        row += System.lineSeparator();
        report.append(row);
        System.out.print(row);
        roundRatios.append(perRoundRow(human(blockSize), mbps, other != null));
      }
      progress.finish();
      report
          .append("\nThe same rounds as ratios taken within each round (sides that ran")
          .append(" back to back see about the same load): median (each round)\n\n")
          .append("| block | ours / Spark |")
          .append(
              other == null ? "" : " " + other.name() + " / Spark | ours / " + other.name() + " |")
          .append("\n| --- | --- |")
          .append(other == null ? "" : " --- | --- |")
          .append('\n')
          .append(roundRatios);
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
    report.append(
        "\nMB/s = 10^6 bytes per second, median (min..max) of the rounds; ratio = ours /"
            + " Spark. The bare loop (RawSendfileFetcher) is a request/sendfile loop on one connection"
            + " with no protocol, reading each block into a block-sized buffer: what the bytes cost"
            + " without any shuffle stack."
            + (compare == null
                ? ""
                : " "
                    + compare.substring(0, compare.indexOf('='))
                    + ": our tcp transport of that build, in the same rounds; its ratio = it /"
                    + " Spark.")
            + "\n");
    System.out.println();
    System.out.println(report);
    if (out != null) {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, report.toString(), StandardCharsets.UTF_8);
      System.out.println("wrote " + out);
    }
    return 0; // Cli.main exits: Netty's and our daemon threads must not keep the JVM up
  }

  /** Per-round ratios of side 0 and (with {@code other}) side 3 to Spark, and of 0 to 3. */
  private static String perRoundRow(String block, double[][] mbps, boolean other) {
    StringBuilder row = new StringBuilder("| ").append(block).append(" |");
    row.append(ratios(mbps[0], mbps[1]));
    if (other) {
      row.append(ratios(mbps[3], mbps[1])).append(ratios(mbps[0], mbps[3]));
    }
    return row.append(System.lineSeparator()).toString();
  }

  /** " median (r0 r1 ...) |" of a[r] / b[r]. */
  private static String ratios(double[] a, double[] b) {
    double[] q = new double[a.length];
    StringBuilder each = new StringBuilder();
    for (int r = 0; r < a.length; r++) {
      q[r] = a[r] / b[r];
      each.append(r == 0 ? "" : " ").append(String.format("%.2f", q[r]));
    }
    return String.format(" %.2f (%s) |", median(q), each);
  }

  /** {@code NAME=CLASS_DIRS}: that build's side, with the dependencies the script passes. */
  private static FetchSide otherBuild(String spec, Path file) throws Exception {
    int eq = spec.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException("--compare NAME=CLASS_DIRS, not " + spec);
    }
    return new OtherBuildFetcher(
        spec.substring(0, eq),
        spec.substring(eq + 1),
        System.getProperty("bench.dependencies", ""),
        file);
  }

  static long window(int blockSize, long bytesInFlight) {
    return bytesInFlight / blockSize;
  }

  private static double measure(FetchSide f, int blockSize, int blocks, int passes, int window)
      throws Exception {
    long t0 = System.nanoTime();
    long bytes = f.fetchAll(blockSize, blocks, passes, window);
    long ns = System.nanoTime() - t0;
    if (bytes != (long) blockSize * blocks * passes) {
      throw new IllegalStateException(f.name() + " fetched " + bytes + " bytes");
    }
    return bytes / (ns / 1e9) / 1e6;
  }

  private static void writeFile(Path p, long size) throws IOException {
    byte[] chunk = new byte[1 << 20];
    new Random(1).nextBytes(chunk);
    try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
      for (long off = 0; off < size; off += chunk.length) {
        f.write(chunk, 0, (int) Math.min(chunk.length, size - off));
      }
    }
  }

  private static String human(long size) {
    return size >= 1 << 20 ? (size >> 20) + " MiB" : (size >> 10) + " KiB";
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static double min(double[] v) {
    return Arrays.stream(v).min().orElse(0);
  }

  private static double max(double[] v) {
    return Arrays.stream(v).max().orElse(0);
  }
}
