/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.PartitionTable;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A map output's data file, opened and checked by an {@link OutputSource}, with its partition
 * table. Whoever receives it owns the channel: registering it hands the channel on, otherwise
 * {@link #close()} it.
 *
 * @param path the data file's real path (no links), as opened
 */
public record OpenedOutput(Path path, FileChannel channel, PartitionTable table)
    implements Closeable {

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
