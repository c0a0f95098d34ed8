/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.ChecksumAnswer;
import io.rdmashuffle.mapoutput.ChecksumAnswer.Status;
import io.rdmashuffle.mapoutput.ChecksumLayout;
import io.rdmashuffle.mapoutput.ChecksumRequest;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.util.zip.Checksum;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a reader whose block did not match its published checksum: the checksum the partition's
 * bytes have in the data file now, computed by reading the file (opened afresh by the {@link
 * OutputSource}, as for serving, never through a registration or the transport), beside the one its
 * meta file publishes. The reader compares both with what it read and names the cause as Spark's
 * shuffle service does (disk: the file no longer matches; network: the file matches, the bytes read
 * did not). Rare by nature (one call per corrupt block), so it reads on the call worker.
 * Thread-safe.
 */
public final class ChecksumService {
  private static final Logger LOG = LoggerFactory.getLogger(ChecksumService.class);
  private static final int CHUNK = 64 * 1024;

  private final OutputSource source;
  private final OutputCatalog catalog;

  public ChecksumService(OutputSource source, OutputCatalog catalog) {
    this.source = source;
    this.catalog = catalog;
  }

  /** The answer for {@code application}, whose peer's connection proved it. */
  public ChecksumAnswer answer(String application, ChecksumRequest request) {
    if (!catalog.isAdmitted(application)) {
      return ChecksumAnswer.failed(Status.REFUSED, "application not served here");
    }
    OutputId id = request.id(application);
    ChecksumAnswer a;
    try (OpenedOutput o = source.open(id)) {
      a = checksumNow(o, request.partition());
    } catch (NoSuchFileException e) {
      a = ChecksumAnswer.failed(Status.NOT_FOUND, "no such map output here");
    } catch (RefusedException e) {
      a = ChecksumAnswer.failed(Status.REFUSED, e.getMessage());
    } catch (IOException | RuntimeException e) {
      a = ChecksumAnswer.failed(Status.UNREADABLE, String.valueOf(e));
    }
    LOG.warn(
        "a reader found partition {} of {} corrupt; its file here now: {}",
        request.partition(),
        id,
        a.status() == Status.OK
            ? (a.published() == a.recomputed() ? "matches" : "does not match")
                + " its published "
                + a.algorithm()
            : a.status() + " " + a.message());
    return a;
  }

  /** Decodes a request, answers it and encodes the answer. */
  public ByteBuffer answer(String application, ByteBuffer request) {
    return ChecksumLayout.encode(answer(application, ChecksumLayout.decodeRequest(request)));
  }

  private static ChecksumAnswer checksumNow(OpenedOutput o, int partition) throws IOException {
    PartitionTable t = o.table();
    if (partition < t.first() || partition >= t.end()) {
      return ChecksumAnswer.failed(
          Status.REFUSED, "partition " + partition + " is not in " + t.first() + ".." + t.end());
    }
    if (t.algorithm() == ChecksumAlgorithm.NONE) {
      return ChecksumAnswer.failed(Status.UNREADABLE, "the map output publishes no checksum");
    }
    long start = t.start(partition);
    long length = t.length(partition);
    int now = checksumOf(o.channel(), start, length, t.algorithm());
    return ChecksumAnswer.ok(t.algorithm(), t.checksum(partition), now, length);
  }

  /**
   * The checksum of {@code length} bytes of {@code file} from {@code start}; a file shorter than
   * that is an {@code IOException}.
   */
  public static int checksumOf(
      FileChannel file, long start, long length, ChecksumAlgorithm algorithm) throws IOException {
    Checksum c = algorithm.newChecksum();
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(1, length)));
    long pos = start;
    long end = start + length;
    while (pos < end) {
      buf.clear().limit((int) Math.min(buf.capacity(), end - pos));
      int n = file.read(buf, pos);
      if (n < 0) {
        throw new IOException("the data file ends at " + pos + ", before " + end);
      }
      pos += n;
      buf.flip();
      c.update(buf);
    }
    return (int) c.getValue();
  }
}
