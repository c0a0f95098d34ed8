/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.MetaFileLayout;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.DirectMemory;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.Checksum;

/**
 * A committed Spark map output's meta file, beside its data file ({@code shuffle_1_2_0.data} has
 * {@code shuffle_1_2_0.data.rdma-meta}, laid out as {@link MetaFileLayout} says): written once at
 * commit with each partition's checksum, read by whoever serves the output later.
 *
 * <p>Checksums are computed by reading the file through its channel, never through a mapping: a
 * file truncated or unreadable under a mapping raises SIGBUS, which can take the process down;
 * through a read it is an {@link IOException}.
 */
public final class MetaFiles {
  private static final int READ_BUFFER = 256 * 1024;

  private MetaFiles() {}

  /** Where the meta file of the map output in {@code dataFile} lives. */
  public static Path pathFor(Path dataFile) {
    return dataFile.resolveSibling(dataFile.getFileName() + ".rdma-meta");
  }

  /**
   * Writes the meta file of a committed map output.
   *
   * @param lengths every partition's length, in order; they must sum to the data file's length
   * @param known checksums the writer computed over exactly the committed bytes (with {@code
   *     algorithm}), or null: then, when {@code checksums} is on, a CRC32C of each partition is
   *     computed here
   * @param checksums whether partitions get checksums at all
   * @return the partition table written
   * @throws IOException when the data file does not match {@code lengths} or can't be read
   */
  public static PartitionTable commit(
      Path dataFile,
      int shuffleId,
      long mapId,
      long[] lengths,
      ChecksumAlgorithm algorithm,
      long[] known,
      boolean checksums)
      throws IOException {
    long total = 0;
    for (long l : lengths) {
      total += l;
    }
    ChecksumAlgorithm alg = ChecksumAlgorithm.NONE;
    int[] sums = null;
    try (FileChannel ch = FileChannel.open(dataFile, StandardOpenOption.READ)) {
      if (ch.size() != total) {
        throw new IOException(
            "data file " + dataFile + " length=" + ch.size() + ": its partitions sum to " + total);
      }
      if (checksums
          && known != null
          && known.length == lengths.length
          && algorithm != null
          && algorithm != ChecksumAlgorithm.NONE) {
        alg = algorithm;
        sums = new int[lengths.length];
        for (int p = 0; p < sums.length; p++) {
          sums[p] = (int) known[p];
        }
      } else if (checksums) {
        alg = ChecksumAlgorithm.CRC32C;
        sums = crc32c(ch, lengths);
      }
    }
    ByteBuffer content = MetaFileLayout.encode(shuffleId, mapId, lengths, alg, sums);
    Path meta = pathFor(dataFile);
    // written under a temporary name and renamed: a reader (or a NodeManager service) finds the
    // old meta file or the new one, whole, never a half-written or truncated one
    Path tmp = meta.resolveSibling(meta.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      while (content.hasRemaining()) {
        ch.write(content);
      }
    }
    try {
      readableAs(tmp, dataFile);
      Files.move(tmp, meta, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    return MetaFileLayout.decode(content.flip(), shuffleId, mapId, total);
  }

  /**
   * Gives {@code meta} the read permissions of {@code data} (and owner write): whoever may read the
   * data file may read its meta file. Under LinuxContainerExecutor Spark makes its shuffle files
   * readable by all for the NodeManager's shuffle service, in sub-dirs without the NodeManager's
   * group, where the container's umask 0027 would leave the meta file to its user alone.
   */
  private static void readableAs(Path meta, Path data) throws IOException {
    java.util.Set<java.nio.file.attribute.PosixFilePermission> d;
    try {
      d = Files.getPosixFilePermissions(data);
    } catch (UnsupportedOperationException e) {
      return; // not a POSIX file system: nothing to match
    }
    java.util.Set<java.nio.file.attribute.PosixFilePermission> m =
        java.util.EnumSet.of(java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    for (java.nio.file.attribute.PosixFilePermission p :
        java.util.List.of(
            java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.GROUP_READ,
            java.nio.file.attribute.PosixFilePermission.OTHERS_READ)) {
      if (d.contains(p)) {
        m.add(p);
      }
    }
    Files.setPosixFilePermissions(meta, m);
  }

  /** A CRC32C of each partition, read through the channel. */
  private static int[] crc32c(FileChannel ch, long[] lengths) throws IOException {
    int[] sums = new int[lengths.length];
    ByteBuffer buf = DirectMemory.allocate(READ_BUFFER);
    try {
      long pos = 0;
      for (int p = 0; p < lengths.length; p++) {
        Checksum c = ChecksumAlgorithm.CRC32C.newChecksum();
        long end = pos + lengths[p];
        while (pos < end) {
          buf.clear().limit((int) Math.min(READ_BUFFER, end - pos));
          int n = ch.read(buf, pos);
          if (n < 0) {
            throw new EOFException("data file ended at " + pos + " while checksumming");
          }
          c.update(buf.flip());
          pos += n;
        }
        sums[p] = (int) c.getValue();
      }
    } finally {
      DirectMemory.free(buf);
    }
    return sums;
  }

  /**
   * Reads the meta file of {@code dataFile} and checks it against the map output and the data
   * file's length.
   *
   * @throws IOException when it is missing or unreadable, or does not describe this output
   */
  public static PartitionTable read(Path dataFile, int shuffleId, long mapId, long dataLength)
      throws IOException {
    Path meta = pathFor(dataFile);
    ByteBuffer b = PublishedOutputs.readAll(meta, PublishedOutputs.maxMetaBytes());
    try {
      return MetaFileLayout.decode(b, shuffleId, mapId, dataLength);
    } catch (IllegalArgumentException e) {
      throw new IOException(meta + " does not describe this map output: " + e.getMessage(), e);
    }
  }

  /** Deletes the meta file of {@code dataFile}; a leftover is harmless (engines clean dirs). */
  public static void delete(Path dataFile) {
    try {
      Files.deleteIfExists(pathFor(dataFile));
    } catch (IOException e) {
      // the engine deletes its local directories when the application ends
    }
  }
}
