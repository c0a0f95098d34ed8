/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Deterministic job inputs. */
public final class Inputs {
  private Inputs() {}

  /**
   * Text files of words from a vocabulary of {@code vocabulary} words with a skewed frequency (so
   * some reduce partitions are much larger than others), {@code bytesPerFile} each.
   */
  public static Path words(
      FileSystem fs, Path dir, int files, long bytesPerFile, int vocabulary, long seed)
      throws IOException {
    if (fs.exists(dir)) {
      return dir;
    }
    Random r = new Random(seed);
    for (int f = 0; f < files; f++) {
      try (OutputStream out = fs.create(new Path(dir, "words-" + f + ".txt"))) {
        StringBuilder line = new StringBuilder();
        long written = 0;
        while (written < bytesPerFile) {
          line.setLength(0);
          for (int w = 0; w < 12; w++) {
            int k = (int) Math.min(vocabulary - 1, Math.abs(r.nextGaussian()) * vocabulary / 3);
            line.append(word(k)).append(' ');
          }
          line.append('\n');
          byte[] b = line.toString().getBytes(StandardCharsets.UTF_8);
          out.write(b);
          written += b.length;
        }
      }
    }
    return dir;
  }

  /** An empty file in {@code dir} (its map reads no record and writes an empty output). */
  public static void empty(FileSystem fs, Path file) throws IOException {
    fs.create(file).close();
  }

  static String word(int k) {
    StringBuilder sb = new StringBuilder();
    int x = k + 1;
    while (x > 0) {
      sb.append((char) ('a' + x % 26));
      x /= 26;
    }
    return sb.toString();
  }
}
