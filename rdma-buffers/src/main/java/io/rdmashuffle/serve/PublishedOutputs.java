/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.MetaFileLayout;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The "published on commit" side of serving: the map outputs this process's own tasks committed (a
 * Spark executor's), each a data file with its meta file beside it ({@link MetaFiles}). The catalog
 * registers them at commit when room allows and otherwise when first asked for; their partition
 * tables come from the meta files, so nothing per output stays in memory beyond its path.
 * Thread-safe; one per process.
 */
public final class PublishedOutputs implements OutputSource {
  private final Map<OutputId, Path> outputs = new ConcurrentHashMap<>();
  private final LongAdder publishedTotal = new LongAdder();

  /** {@code id}'s committed data file, whose meta file {@link MetaFiles#commit} wrote. */
  public void publish(OutputId id, Path dataFile) {
    outputs.put(id, dataFile);
    publishedTotal.increment();
  }

  /** The data file of a published output, or null. */
  public Path dataFile(OutputId id) {
    return outputs.get(id);
  }

  /**
   * Forgets an output. Deletes its meta file unless {@code keepMeta} (a re-run of the same map is
   * about to publish a new one under the same name).
   */
  public void remove(OutputId id, boolean keepMeta) {
    Path data = outputs.remove(id);
    if (data != null && !keepMeta) {
      MetaFiles.delete(data);
    }
  }

  /** Forgets every output of a shuffle and deletes their meta files. */
  public void removeShuffle(String application, String shuffle) {
    List<OutputId> gone = new ArrayList<>();
    for (OutputId id : outputs.keySet()) {
      if (id.application().equals(application) && id.shuffle().equals(shuffle)) {
        gone.add(id);
      }
    }
    for (OutputId id : gone) {
      remove(id, false);
    }
  }

  /** Forgets every output and deletes their meta files (the process stops serving them). */
  public void removeAll() {
    for (OutputId id : new ArrayList<>(outputs.keySet())) {
      remove(id, false);
    }
  }

  /** Outputs published now. */
  public int size() {
    return outputs.size();
  }

  /** Outputs published since the process started, withdrawn ones included. */
  public long publishedTotal() {
    return publishedTotal.sum();
  }

  @Override
  public OpenedOutput open(OutputId id) throws IOException {
    Path data = outputs.get(id);
    if (data == null) {
      throw new NoSuchFileException(id.toString());
    }
    FileChannel ch = FileChannel.open(data, StandardOpenOption.READ);
    try {
      PartitionTable table =
          MetaFiles.read(data, Integer.parseInt(id.shuffle()), Long.parseLong(id.map()), ch.size());
      return new OpenedOutput(data, ch, table);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** Reads a whole small file. */
  static ByteBuffer readAll(Path p, int max) throws IOException {
    long size = Files.size(p);
    if (size > max) {
      throw new IOException(p + " of " + size + " bytes: larger than " + max);
    }
    return ByteBuffer.wrap(Files.readAllBytes(p));
  }

  static int maxMetaBytes() {
    return MetaFileLayout.fileLength(MetaFileLayout.MAX_PARTITIONS);
  }
}
