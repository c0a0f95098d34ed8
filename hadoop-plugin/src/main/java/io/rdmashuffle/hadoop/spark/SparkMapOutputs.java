/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import io.rdmashuffle.mapoutput.MetaFileLayout;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.serve.ConfinedFiles;
import io.rdmashuffle.serve.OpenedOutput;
import io.rdmashuffle.serve.OutputSource;
import io.rdmashuffle.serve.RefusedException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.network.shuffle.ExecutorDiskUtils;

/**
 * Finds a Spark map output in the local dirs of the executors its application registered on this
 * node: {@code shuffle_<shuffle>_<map>_0.data} where Spark's disk block manager puts it (the same
 * hash of the name over local dirs and sub-dirs, {@link ExecutorDiskUtils}), with the meta file the
 * executor wrote beside it at commit. Both files are opened relative to the NodeManager local dir
 * they lie below, component by component ({@link ConfinedFiles}); with Hadoop security on, they
 * must belong to the application's user.
 *
 * <p>A map output names no executor (the reducer asks the node, which serves every executor of the
 * application), so each of the application's executors here is tried in the order they registered;
 * an executor's dirs hold only its own outputs. A refusal in one executor's dirs (a link, a file of
 * another user) does not end the search: another executor may hold the output; it is the answer
 * only when none does.
 */
final class SparkMapOutputs implements OutputSource {
  private final SparkExecutors executors;
  private final boolean checkOwner;

  /**
   * @param checkOwner whether files must belong to the application's user (Hadoop security on:
   *     containers run as that user)
   */
  SparkMapOutputs(SparkExecutors executors, boolean checkOwner) {
    this.executors = executors;
    this.checkOwner = checkOwner;
  }

  @Override
  public OpenedOutput open(OutputId id) throws IOException {
    int shuffle;
    long map;
    try {
      shuffle = Integer.parseInt(id.shuffle());
      map = Long.parseLong(id.map());
    } catch (NumberFormatException e) {
      throw new RefusedException(id + ": not a Spark map output (shuffle and map are numbers)");
    }
    SparkExecutors.Application app = executors.application(id.application());
    String owner = checkOwner ? (app == null ? null : app.user()) : null;
    if (checkOwner && owner == null) {
      throw new RefusedException("application " + id.application() + " has no known user here");
    }
    String name = "shuffle_" + shuffle + "_" + map + "_0.data";
    RefusedException refused = null;
    for (SparkExecutors.Executor e : executors.executorsOf(id.application())) {
      Located where = locate(e, name);
      FileChannel data;
      try {
        data = ConfinedFiles.open(where.root(), where.components(), owner);
      } catch (NoSuchFileException notHere) {
        continue;
      } catch (RefusedException badDir) {
        // one executor's dirs (a link, a file of another user) say nothing of the others'
        if (refused == null) {
          refused = badDir;
        }
        continue;
      }
      try {
        PartitionTable table = readMeta(where, owner, shuffle, map, data.size());
        return new OpenedOutput(where.path(), data, table);
      } catch (IOException | RuntimeException failed) {
        data.close();
        throw failed;
      }
    }
    if (refused != null) {
      throw refused;
    }
    throw new NoSuchFileException(
        "no map output "
            + id
            + " in the local dirs of the "
            + executors.executorsOf(id.application()).size()
            + " executors of "
            + id.application()
            + " registered here");
  }

  /** A file below a NodeManager local dir. */
  record Located(Path root, List<String> components) {
    Path path() {
      return root.resolve(String.join("/", components));
    }

    Located sibling(String name) {
      List<String> c = new ArrayList<>(components);
      c.set(c.size() - 1, name);
      return new Located(root, c);
    }
  }

  /** Where Spark's disk block manager of executor {@code e} puts the file {@code name}. */
  static Located locate(SparkExecutors.Executor e, String name) {
    String[] dirs = e.localDirs();
    String path = ExecutorDiskUtils.getFilePath(dirs, e.subDirsPerLocalDir(), name);
    Path p = Path.of(path);
    // the local dir Spark's hash picked is the one whose path starts the file's
    for (int i = 0; i < dirs.length; i++) {
      Path dir = Path.of(dirs[i]);
      if (p.getParent() != null && dir.equals(p.getParent().getParent())) {
        List<String> c = new ArrayList<>(e.below().get(i));
        c.add(p.getParent().getFileName().toString());
        c.add(name);
        return new Located(e.roots()[i], c);
      }
    }
    throw new IllegalStateException(path + " is in none of the local dirs of executor " + e.id());
  }

  private static PartitionTable readMeta(
      Located data, String owner, int shuffle, long map, long dataLength) throws IOException {
    Located meta = data.sibling(data.components().get(data.components().size() - 1) + ".rdma-meta");
    try (FileChannel ch = ConfinedFiles.open(meta.root(), meta.components(), owner)) {
      long size = ch.size();
      int max = MetaFileLayout.fileLength(MetaFileLayout.MAX_PARTITIONS);
      if (size > max) {
        throw new IOException(meta.path() + " of " + size + " bytes: larger than " + max);
      }
      ByteBuffer b = ByteBuffer.allocate((int) size);
      while (b.hasRemaining()) {
        if (ch.read(b, b.position()) < 0) {
          throw new EOFException(meta.path() + " ended at " + b.position());
        }
      }
      try {
        return MetaFileLayout.decode(b.flip(), shuffle, map, dataLength);
      } catch (IllegalArgumentException e) {
        throw new IOException(
            meta.path() + " does not describe this map output: " + e.getMessage(), e);
      }
    } catch (NoSuchFileException e) {
      throw new IOException(
          "map output "
              + data.path()
              + " has no meta file (it was not"
              + " committed by rdma-shuffle)",
          e);
    }
  }
}
