/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The executors' map output files of a shuffle. Executors of every application in a test JVM may
 * share the first application's local directories (Spark caches them per JVM), so these look under
 * every test's work directory, at files written since the application started.
 */
final class ShuffleFiles {
  /** One block (a reduce partition of one map output): its data file and byte range. */
  record BlockRange(Path data, int partition, long offset, long length) {}

  private ShuffleFiles() {}

  /** The largest block of shuffle {@code shuffleId} among files written since {@code since}. */
  static BlockRange largestBlock(int shuffleId, long since) throws IOException {
    String prefix = "shuffle_" + shuffleId + "_";
    // Spark hashes each file's name to a subdirectory: an index and its data file part ways
    Map<String, Path> files;
    try (Stream<Path> all = Files.walk(Path.of(ItCluster.property("rdma.it.workDir")))) {
      files =
          all.filter(
                  f ->
                      f.getFileName().toString().startsWith(prefix)
                          && f.toFile().lastModified() >= since - 1000)
              .collect(Collectors.toMap(f -> f.getFileName().toString(), f -> f, (a, b) -> a));
    }
    BlockRange best = null;
    for (Map.Entry<String, Path> e : files.entrySet()) {
      if (!e.getKey().endsWith("_0.index")) {
        continue;
      }
      long[] offsets = offsets(e.getValue());
      Path data = files.get(e.getKey().replace(".index", ".data"));
      if (data == null) {
        continue; // every partition empty: no data file
      }
      for (int p = 0; p + 1 < offsets.length; p++) {
        long length = offsets[p + 1] - offsets[p];
        if (best == null || length > best.length()) {
          best = new BlockRange(data, p, offsets[p], length);
        }
      }
    }
    if (best == null) {
      throw new AssertionError("no index file of shuffle " + shuffleId);
    }
    return best;
  }

  private static long[] offsets(Path index) throws IOException {
    long[] offsets = new long[(int) (Files.size(index) / 8)];
    try (DataInputStream in = new DataInputStream(Files.newInputStream(index))) {
      for (int i = 0; i < offsets.length; i++) {
        offsets[i] = in.readLong();
      }
    }
    return offsets;
  }

  /** Inverts every bit of one byte of {@code file}. */
  static void flipByte(Path file, long position) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, position);
      b.put(0, (byte) (b.get(0) ^ 0xff)).rewind();
      ch.write(b, position);
    }
  }
}
