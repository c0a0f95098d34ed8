/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.tools.Cli;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.Checksum;

/**
 * What a block checksum costs per GB, for each algorithm a map output can publish: the map side
 * computes it while Spark writes (heap arrays, as Spark's writers pass them), the reduce side while
 * a block is consumed (heap arrays of a stream's reads) or over a block READ whole (a direct
 * buffer). One thread; CPU seconds of that thread per 10^9 bytes, the median of the rounds.
 *
 * <p>{@code bin/rdma-shuffle bench checksum}; its arguments: {@link #USAGE}.
 */
public final class ChecksumBenchmark {
  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench checksum [--mib 1024] [--rounds 5] [--chunk 64k] [--out FILE]
        CPU seconds per GB of each block checksum (Adler32, CRC32, CRC32C) over heap arrays of
        --chunk bytes and over one direct buffer, one thread, --mib MiB per round after a
        warm-up of as much; the median of --rounds. Markdown to --out as well when given.
      """;

  /** Where the values go, so the JIT can't drop the work that made them. */
  static volatile long blackhole;

  private ChecksumBenchmark() {}

  public static void main(String[] args) {
    Cli.main("bench checksum", USAGE, args, ChecksumBenchmark::run);
  }

  private static int run(Cli a) throws Exception {
    long mib = a.intOption("mib", 1024);
    int rounds = a.intOption("rounds", 5);
    int chunk = Math.toIntExact(Cli.bytes(a.option("chunk", "64k")));
    String out = a.option("out", null);
    a.done();
    if (mib < 1 || rounds < 1 || chunk < 1 || chunk > 64 << 20) {
      throw new Cli.UsageError("need --mib and --rounds of at least 1, --chunk 1 to 64m");
    }
    byte[] heap = new byte[Math.max(chunk, 1 << 20)];
    new SplittableRandom(1).nextBytes(heap);
    ByteBuffer direct = ByteBuffer.allocateDirect(64 << 20);
    for (int i = 0; i < direct.capacity(); i += heap.length) {
      direct.put(ByteBuffer.wrap(heap, 0, Math.min(heap.length, direct.capacity() - i)));
    }
    long bytes = mib << 20;
    List<String> lines = new ArrayList<>();
    lines.add("# Block checksums: CPU seconds per GB, one thread");
    lines.add("");
    lines.add(
        String.format(
            Locale.ROOT,
            "`bin/rdma-shuffle bench checksum --mib %d --rounds %d --chunk %d`",
            mib,
            rounds,
            chunk));
    lines.add("");
    lines.add("```");
    lines.add(Machine.describe().stripTrailing());
    lines.add("```");
    lines.add("");
    lines.add(
        "The heap updates go over the same --chunk bytes of one array again and again: they stay"
            + " in the processor's caches, as an array a writer just filled does. The direct buffer is 64"
            + " MiB, larger than the caches, as the buffers of blocks READ whole are.");
    lines.add("");
    lines.add("| algorithm | heap arrays of " + chunk + " bytes (s/GB) | direct buffer (s/GB) |");
    lines.add("| --- | ---: | ---: |");
    for (ChecksumAlgorithm algorithm : ChecksumAlgorithm.values()) {
      if (algorithm == ChecksumAlgorithm.NONE) {
        continue;
      }
      double onHeap = median(algorithm, rounds, bytes, heap, chunk, null);
      double onDirect = median(algorithm, rounds, bytes, heap, chunk, direct);
      String line = String.format(Locale.ROOT, "| %s | %.3f | %.3f |", algorithm, onHeap, onDirect);
      lines.add(line);
      System.out.println(line);
    }
    if (out != null) {
      Files.writeString(Path.of(out), String.join("\n", lines) + "\n");
      System.out.println("results: " + out);
    }
    return 0;
  }

  /** The median over {@code rounds} of CPU s/GB, after one untimed round. */
  private static double median(
      ChecksumAlgorithm algorithm,
      int rounds,
      long bytes,
      byte[] heap,
      int chunk,
      ByteBuffer direct) {
    long sink = once(algorithm, bytes, heap, chunk, direct);
    double[] perGb = new double[rounds];
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int r = 0; r < rounds; r++) {
      long t0 = threads.getCurrentThreadCpuTime();
      sink += once(algorithm, bytes, heap, chunk, direct);
      perGb[r] = (threads.getCurrentThreadCpuTime() - t0) / (double) bytes;
    }
    blackhole = sink;
    Arrays.sort(perGb);
    return perGb[rounds / 2];
  }

  private static long once(
      ChecksumAlgorithm algorithm, long bytes, byte[] heap, int chunk, ByteBuffer direct) {
    Checksum c = algorithm.newChecksum();
    if (direct == null) {
      for (long done = 0; done < bytes; done += chunk) {
        c.update(heap, 0, chunk);
      }
    } else {
      for (long done = 0; done < bytes; done += direct.capacity()) {
        c.update(direct.duplicate().clear());
      }
    }
    return c.getValue();
  }
}
