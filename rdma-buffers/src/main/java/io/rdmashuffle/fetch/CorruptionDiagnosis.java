/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.ChecksumAnswer;
import io.rdmashuffle.mapoutput.ChecksumRequest;
import io.rdmashuffle.serve.ChecksumService;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds why a block did not match its published checksum, as Spark's shuffle service does for its
 * readers (SPARK-36206): it compares three checksums, the one published at commit, the one of the
 * bytes read, and the one of the bytes the owner's file holds now. The file differing from what was
 * published is a {@link CorruptionCause#DISK_ISSUE}; the file matching while the bytes read did not
 * is a {@link CorruptionCause#NETWORK_ISSUE} for a block that came through the transport.
 *
 * <p>Where "the file now" comes from: a block read from its file on this host (this process's or
 * another executor's of this host) is read again from that file. For a block that came through the
 * transport the owner is asked to checksum its file region ({@link ChecksumService}, one call): a
 * READ again would not do, since it goes through the same network that may have damaged the first
 * one, and with verbs on a kernel that pins a private copy of a read-only file it reads that copy,
 * not the file. A local block whose file matches again was damaged between the file and the reader
 * in this host, not by any network: its cause is {@link CorruptionCause#UNKNOWN_ISSUE}. Any failure
 * to diagnose is UNKNOWN_ISSUE too: the diagnosis is best effort and never hides the corruption,
 * which stays a fetch failure of the map output. Each cause is counted ({@link ReadCounters}).
 * Consumer thread only.
 */
final class CorruptionDiagnosis {
  private static final Logger LOG = LoggerFactory.getLogger(CorruptionDiagnosis.class);

  /** The cause and what was compared, for the fetch failure's message. */
  record Diagnosis(CorruptionCause cause, String detail) {
    /** Spark's words: "... is corrupted due to DISK_ISSUE" (its fetch failure's message). */
    String message() {
      String what =
          switch (cause) {
            case CHECKSUM_VERIFY_PASS -> "is corrupted but checksum verification passed";
            case UNKNOWN_ISSUE -> "is corrupted but the cause is unknown";
            default -> "is corrupted due to " + cause;
          };
      return "the block " + what + " (" + detail + ")";
    }
  }

  private final String application;
  private final Locator locator;

  CorruptionDiagnosis(String application, Locator locator) {
    this.application = application;
    this.locator = locator;
  }

  /** Why {@code block}, published as {@code published}, was read as {@code read}. */
  Diagnosis diagnose(Block block, ChecksumAlgorithm algorithm, int published, int read) {
    String seen =
        algorithm
            + " of the "
            + block.size()
            + " bytes read is "
            + Integer.toHexString(read)
            + ", published "
            + Integer.toHexString(published);
    Diagnosis d;
    try {
      d =
          block instanceof LocalFileBlock local
              ? ofLocal(local, algorithm, published, read, seen)
              : ofRemote(block, algorithm, published, read, seen);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      d = new Diagnosis(CorruptionCause.UNKNOWN_ISSUE, seen + "; diagnosis interrupted");
    } catch (IOException | RuntimeException | ExecutionException e) {
      Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      d = new Diagnosis(CorruptionCause.UNKNOWN_ISSUE, seen + "; can't diagnose: " + c);
    }
    LOG.warn("{}, partition {}: {}", block.source(), block.partition(), d.message());
    return d;
  }

  private static Diagnosis ofLocal(
      LocalFileBlock block, ChecksumAlgorithm algorithm, int published, int read, String seen)
      throws IOException {
    int now;
    try (FileChannel f = FileChannel.open(block.file(), StandardOpenOption.READ)) {
      now = ChecksumService.checksumOf(f, block.start(), block.size(), algorithm);
    }
    String detail =
        seen + "; its file " + block.file() + " holds " + Integer.toHexString(now) + " now";
    return new Diagnosis(cause(published, read, now, false), detail);
  }

  private Diagnosis ofRemote(
      Block block, ChecksumAlgorithm algorithm, int published, int read, String seen)
      throws InterruptedException, ExecutionException {
    BlockSource s = block.source();
    ChecksumAnswer a =
        locator
            .checksum(
                s.owner().address(),
                application,
                new ChecksumRequest(s.shuffle(), s.map(), block.partition()))
            .get();
    if (a.status() != ChecksumAnswer.Status.OK) {
      return new Diagnosis(
          CorruptionCause.UNKNOWN_ISSUE,
          seen + "; the owner says " + a.status() + ": " + a.message());
    }
    if (a.algorithm() != algorithm) {
      return new Diagnosis(
          CorruptionCause.UNKNOWN_ISSUE, seen + "; the owner publishes " + a.algorithm());
    }
    // as Spark's service: the writer's checksum is the one the owner holds, whatever the reader
    // was told (a damaged locate answer is a network issue too)
    String detail =
        seen
            + "; the owner publishes "
            + Integer.toHexString(a.published())
            + ", its file holds "
            + Integer.toHexString(a.recomputed())
            + " now";
    return new Diagnosis(cause(a.published(), read, a.recomputed(), true), detail);
  }

  /** Spark's rule (its {@code ShuffleChecksumHelper.diagnoseCorruption}), network only remote. */
  static CorruptionCause cause(int published, int read, int fileNow, boolean remote) {
    if (fileNow != published) {
      return CorruptionCause.DISK_ISSUE;
    }
    if (read != published) {
      return remote ? CorruptionCause.NETWORK_ISSUE : CorruptionCause.UNKNOWN_ISSUE;
    }
    return CorruptionCause.CHECKSUM_VERIFY_PASS;
  }
}
