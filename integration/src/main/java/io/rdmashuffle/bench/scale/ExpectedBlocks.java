/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The bytes each block should have, read from the map outputs' own files as Spark's sort shuffle
 * lays them out: {@code shuffle_S_M_0.data} and {@code shuffle_S_M_0.index} ({@code partitions + 1}
 * big-endian offsets), found anywhere below the folders given (a serving host's local dirs; the
 * harness's hosts share this machine's file system). Thread-safe; every lookup opens the files
 * anew, so nothing is held between blocks.
 */
public final class ExpectedBlocks {
  private static final Pattern FILE = Pattern.compile("shuffle_(\\d+)_(\\d+)_0\\.(data|index)");

  private final Map<String, Path> dataFiles;
  private final Map<String, Path> indexFiles;

  private ExpectedBlocks(Map<String, Path> dataFiles, Map<String, Path> indexFiles) {
    this.dataFiles = dataFiles;
    this.indexFiles = indexFiles;
  }

  /** Indexes every data file of {@code shuffle} below {@code roots}. */
  public static ExpectedBlocks find(String shuffle, List<Path> roots) throws IOException {
    Map<String, Path> data = new HashMap<>();
    Map<String, Path> index = new HashMap<>();
    for (Path root : roots) {
      try (Stream<Path> all = Files.walk(root)) {
        all.forEach(
            p -> {
              // Spark places each file by its own name's hash: the two may be in different folders
              Matcher m = FILE.matcher(p.getFileName().toString());
              if (m.matches() && m.group(1).equals(shuffle)) {
                (m.group(3).equals("data") ? data : index).put(m.group(2), p);
              }
            });
      }
    }
    return new ExpectedBlocks(data, index);
  }

  /** How many map outputs' data and index files were found. */
  public int size() {
    return (int) dataFiles.keySet().stream().filter(indexFiles::containsKey).count();
  }

  /** The bytes of partition {@code partition} of map output {@code map}. */
  public byte[] block(String map, int partition) throws IOException {
    Path data = dataFiles.get(map);
    Path index = indexFiles.get(map);
    if (data == null || index == null) {
      throw new IOException("no data or index file of map output " + map + " was found");
    }
    long start;
    long end;
    try (FileChannel ch = FileChannel.open(index, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(16);
      readFully(ch, b, 8L * partition);
      start = b.getLong(0);
      end = b.getLong(8);
    }
    byte[] bytes = new byte[Math.toIntExact(end - start)];
    try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ)) {
      readFully(ch, ByteBuffer.wrap(bytes), start);
    }
    return bytes;
  }

  private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
    long pos = at;
    while (b.hasRemaining()) {
      int n = ch.read(b, pos);
      if (n < 0) {
        throw new IOException("end of file at " + pos);
      }
      pos += n;
    }
  }
}
