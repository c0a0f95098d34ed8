/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * The per-partition checksum a map output publishes for its blocks. The first three are the JDK
 * algorithms Spark's shuffle checksums use ({@code spark.shuffle.checksum.algorithm}), so a map
 * output can publish Spark's own values; when it can't, it computes {@link #CRC32C}. All produce
 * 32-bit values. {@link #NONE} means the map side computed nothing (verification off).
 */
public enum ChecksumAlgorithm {
  NONE(0),
  ADLER32(1),
  CRC32(2),
  CRC32C(3);

  private final int id;

  ChecksumAlgorithm(int id) {
    this.id = id;
  }

  /** The value written in descriptors and meta files. */
  public int id() {
    return id;
  }

  public static ChecksumAlgorithm fromId(int id) {
    for (ChecksumAlgorithm a : values()) {
      if (a.id == id) {
        return a;
      }
    }
    throw new IllegalArgumentException("checksum algorithm id=" + id + ": unknown");
  }

  /** The algorithm Spark names so ({@code ADLER32, CRC32, CRC32C}), or null when unknown here. */
  public static ChecksumAlgorithm fromSparkName(String name) {
    if (name == null) {
      return null;
    }
    return switch (name.trim().toUpperCase(Locale.ROOT)) {
      case "ADLER32" -> ADLER32;
      case "CRC32" -> CRC32;
      case "CRC32C" -> CRC32C;
      default -> null;
    };
  }

  /**
   * Checks that {@code checksums} go with this algorithm for {@code partitions} partitions: one per
   * partition, or none (null) exactly when the algorithm is NONE.
   *
   * @throws IllegalArgumentException naming both
   */
  public void checkChecksums(int[] checksums, int partitions) {
    if ((this == NONE) != (checksums == null)
        || (checksums != null && checksums.length != partitions)) {
      throw new IllegalArgumentException(
          "checksums="
              + (checksums == null ? "none" : checksums.length)
              + " with algorithm="
              + this
              + " for "
              + partitions
              + " partitions");
    }
  }

  public Checksum newChecksum() {
    return switch (this) {
      case ADLER32 -> new Adler32();
      case CRC32 -> new CRC32();
      case CRC32C -> new CRC32C();
      case NONE -> throw new IllegalStateException("no checksum algorithm");
    };
  }

  /** The checksum of the concatenation of {@code parts} (their remaining bytes; not consumed). */
  public int of(List<ByteBuffer> parts) {
    Checksum c = newChecksum();
    for (ByteBuffer p : parts) {
      c.update(p.duplicate());
    }
    return (int) c.getValue();
  }
}
