/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The data file on this host that the blocks of one map output planned together ({@link
 * ReadPlanner#planLocal}) are read from: opened when the first of them is read, closed when the
 * last of them is released. A task reads a map output's blocks one after another (they are ready
 * together), so it opens the file once for them, as Spark's reader does for a batch of contiguous
 * blocks, and holds one open file per map output it is reading, not one per block. Any thread.
 */
final class SharedDataFile {
  private final Path path;

  /** Blocks not yet released; at 0 the file is closed for good. */
  private int holders;

  private FileChannel channel;

  /** A file {@code holders} blocks are read from; each releases it once. */
  SharedDataFile(Path path, int holders) {
    this.path = path;
    this.holders = holders;
  }

  Path path() {
    return path;
  }

  /**
   * The open file, opened now if no block read it yet.
   *
   * @throws IOException when it can't be opened, or every block released it already
   */
  synchronized FileChannel channel() throws IOException {
    if (holders <= 0) {
      throw new IOException(path + " was released by every block read from it");
    }
    if (channel == null) {
      channel = FileChannel.open(path, StandardOpenOption.READ);
    }
    return channel;
  }

  /** A block is done with the file: the last one closes it. */
  void release() {
    FileChannel c = null;
    synchronized (this) {
      if (holders > 0 && --holders == 0) {
        c = channel;
        channel = null;
      }
    }
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        // nothing was written; the descriptor is gone either way
      }
    }
  }
}
