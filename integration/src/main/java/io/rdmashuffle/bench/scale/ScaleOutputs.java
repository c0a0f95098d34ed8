/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import io.rdmashuffle.serve.MetaFiles;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The map outputs the scale benchmark serves: {@code outputs} files of {@code partitions} blocks of
 * {@code blockBytes} each, laid out as Spark's sort shuffle writes them ({@code
 * shuffle_0_M_0.data}, its {@code .index}) with rdma-shuffle's meta file, as an executor commits
 * them. The data files are sparse (holes read as zeros): the benchmark measures serving, not disks,
 * and 10,000 outputs then cost no disk space. Made once per shape and kept ({@code DIR/complete}
 * says they are whole).
 */
final class ScaleOutputs {
  static final int SHUFFLE = 0;

  private ScaleOutputs() {}

  /** The folder of outputs of this shape below {@code root}, made when it is not there yet. */
  static Path ensure(Path root, int outputs, int partitions, int blockBytes) throws IOException {
    Path dir = root.resolve(outputs + "x" + partitions + "x" + blockBytes);
    if (Files.exists(dir.resolve("complete"))) {
      return dir;
    }
    Files.createDirectories(dir);
    long[] lengths = new long[partitions];
    java.util.Arrays.fill(lengths, blockBytes);
    for (int m = 0; m < outputs; m++) {
      Path data = data(dir, m);
      try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
        f.setLength((long) partitions * blockBytes);
      }
      Path index = dir.resolve("shuffle_" + SHUFFLE + "_" + m + "_0.index");
      try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(index))) {
        for (int p = 0; p <= partitions; p++) {
          out.writeLong((long) p * blockBytes);
        }
      }
      MetaFiles.commit(data, SHUFFLE, m, lengths, null, null, true);
    }
    Files.writeString(dir.resolve("complete"), outputs + " outputs\n");
    return dir;
  }

  static Path data(Path dir, int map) {
    return dir.resolve("shuffle_" + SHUFFLE + "_" + map + "_0.data");
  }
}
