/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/**
 * The checksum check of one block, the same for every kind of block: the bytes are fed as they are
 * read (or all at once), and {@link #verify} compares with the value published at commit. A block
 * without a checksum (verification off, algorithm NONE) checks nothing.
 */
final class BlockChecksum {
  private final Checksum running;
  private final ChecksumAlgorithm algorithm;
  private final int expected;
  private final CorruptionDiagnosis diagnosis;

  private BlockChecksum(ChecksumAlgorithm algorithm, int expected, CorruptionDiagnosis diagnosis) {
    this.algorithm = algorithm;
    this.expected = expected;
    this.diagnosis = diagnosis;
    this.running = algorithm == ChecksumAlgorithm.NONE ? null : algorithm.newChecksum();
  }

  /**
   * The check of a block published with {@code expected} under {@code algorithm}; a mismatch is
   * diagnosed by {@code diagnosis}.
   */
  static BlockChecksum of(
      boolean verify, ChecksumAlgorithm algorithm, int expected, CorruptionDiagnosis diagnosis) {
    return new BlockChecksum(verify ? algorithm : ChecksumAlgorithm.NONE, expected, diagnosis);
  }

  boolean active() {
    return running != null;
  }

  void update(byte[] b, int off, int len) {
    if (running != null) {
      running.update(b, off, len);
    }
  }

  /** Feeds the remaining bytes of {@code b} (not consumed). */
  void update(ByteBuffer b) {
    if (running != null) {
      running.update(b.duplicate());
    }
  }

  /**
   * After every byte of {@code block} was fed: a mismatch is a CHECKSUM failure whose message says
   * its diagnosed cause, counted by cause.
   */
  void verify(Block block, ReadCounters counters) throws BlockFetchException {
    if (running == null) {
      return;
    }
    int actual = (int) running.getValue();
    if (actual != expected) {
      CorruptionDiagnosis.Diagnosis d = diagnosis.diagnose(block, algorithm, expected, actual);
      counters.corrupted(d.cause());
      throw counters.failure(
          BlockFetchException.Kind.CHECKSUM, block.source(), block.partition(), d.message(), null);
    }
  }
}
