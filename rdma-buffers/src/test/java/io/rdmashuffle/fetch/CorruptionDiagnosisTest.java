/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.ChecksumAnswer;
import io.rdmashuffle.mapoutput.ChecksumLayout;
import io.rdmashuffle.mapoutput.ChecksumRequest;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ServerAndReader;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A block whose bytes do not match their published checksum is diagnosed with Spark's causes and
 * words (SPARK-36206): a file changed since commit is a disk issue, whether the block came through
 * the transport (the owner checksums its file on request, over a real tcp call) or from its file on
 * this host; a file that still matches while the bytes read did not is a network issue; each cause
 * counted.
 */
@Timeout(60)
class CorruptionDiagnosisTest {
  private static final String APP = "app-corruption";
  private static final byte[] SECRET = "corruption-secret-0123456".getBytes(StandardCharsets.UTF_8);
  private static final long[] LENGTHS = {100, 5000, 300_000, 12_345};
  private static final long DAMAGED_AT = 100 + 5000 + 150_000; // in partition 2

  @TempDir Path dir;
  private final PublishedOutputs published = new PublishedOutputs();
  private final ReadCounters counters = new ReadCounters();
  private ServerAndReader processes;
  private NodeRuntime server;
  private NodeRuntime client;

  @BeforeEach
  void start() throws Exception {
    RdmaConf conf =
        RdmaConf.of(
            TestSchema.SPARK_KEYS,
            Map.of(
                "spark.shuffle.rdma.transport", "tcp",
                "spark.shuffle.rdma.read.timeout", "5s",
                "spark.shuffle.rdma.memory.pieceSize", "64k",
                "spark.shuffle.rdma.buffers.chunkSize", "1m",
                "spark.shuffle.rdma.buffers.maxBytes", "16m"));
    processes = new ServerAndReader(conf, published, APP, SECRET);
    server = processes.server;
    client = processes.client;
  }

  @AfterEach
  void stop() {
    processes.close();
  }

  private Path commit(long map) throws IOException {
    long total = 0;
    for (long l : LENGTHS) {
      total += l;
    }
    Path data = Patterns.file(dir.resolve("shuffle_1_" + map + "_0.data"), total, (int) map);
    MetaFiles.commit(data, 1, map, LENGTHS, null, null, true);
    published.publish(OutputId.spark(APP, 1, map), data);
    return data;
  }

  /** Writes {@code value} at {@link #DAMAGED_AT}; returns the byte that was there. */
  private static byte damage(Path data, byte value) throws IOException {
    try (FileChannel ch =
        FileChannel.open(data, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer was = ByteBuffer.allocate(1);
      ch.read(was, DAMAGED_AT);
      ch.write(ByteBuffer.wrap(new byte[] {value}), DAMAGED_AT);
      return was.get(0);
    }
  }

  /** The real locate and checksum calls to the server, with {@code beforeChecksum} run first. */
  private Locator locator(Runnable beforeChecksum) {
    Locator real = client.locatorClient();
    return new Locator() {
      @Override
      public CompletableFuture<LocateAnswer> locate(
          PeerAddress owner, String application, LocateRequest request) {
        return real.locate(owner, application, request);
      }

      @Override
      public CompletableFuture<ChecksumAnswer> checksum(
          PeerAddress owner, String application, ChecksumRequest request) {
        beforeChecksum.run();
        return real.checksum(owner, application, request);
      }
    };
  }

  private BlockFetchException readFails(long map, boolean sameHost, Locator locator)
      throws Exception {
    try (BlockFetcher f =
        new BlockFetcher(
            APP,
            locator,
            server.catalog(),
            client.connections(),
            client.buffers(),
            new FetchOptions(1 << 20, 8, 64 * 1024, sameHost, true, 2000, 0, 20),
            counters,
            client.fetchDriver(),
            () -> {})) {
      f.add(
          new BlockSource(
              new Owner(server.transport().localAddress(), sameHost, false),
              "1",
              Long.toString(map),
              new int[] {0, 1, 2, 3},
              "map " + map));
      return assertThrows(
          BlockFetchException.class,
          () -> {
            Block b;
            while ((b = f.next()) != null) {
              try (InputStream in = b.stream()) {
                in.readAllBytes();
              }
            }
          });
    }
  }

  @Test
  void aFileChangedSinceCommitIsADiskIssueWhenReadThroughTheTransport() throws Exception {
    Path data = commit(1);
    damage(data, (byte) 42);
    BlockFetchException e = readFails(1, false, locator(() -> {}));
    assertEquals(BlockFetchException.Kind.CHECKSUM, e.kind(), e.getMessage());
    assertEquals(2, e.partition());
    assertTrue(e.getMessage().contains("is corrupted due to DISK_ISSUE"), e.getMessage());
    assertEquals(1, counters.corruptions(CorruptionCause.DISK_ISSUE));
    assertEquals(1L, counters.snapshot().get("corruptions.DISK_ISSUE"));
  }

  @Test
  void aFileChangedSinceCommitIsADiskIssueWhenReadFromItOnThisHost() throws Exception {
    Path data = commit(2);
    damage(data, (byte) 42);
    BlockFetchException e = readFails(2, true, locator(() -> fail("a local block asks nobody")));
    assertEquals(BlockFetchException.Kind.CHECKSUM, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("is corrupted due to DISK_ISSUE"), e.getMessage());
    assertEquals(1, counters.corruptions(CorruptionCause.DISK_ISSUE));
  }

  @Test
  void bytesDamagedOnTheirWayWhileTheFileMatchesAreANetworkIssue() throws Exception {
    Path data = commit(3);
    byte was = damage(data, (byte) 42);
    // the READ sees the damaged byte; by the time the owner is asked its file is whole again:
    // exactly what the reader sees when the network damaged the bytes
    BlockFetchException e =
        readFails(
            3,
            false,
            locator(
                () -> {
                  try {
                    damage(data, was);
                  } catch (IOException x) {
                    throw new IllegalStateException(x);
                  }
                }));
    assertTrue(e.getMessage().contains("is corrupted due to NETWORK_ISSUE"), e.getMessage());
    assertEquals(1, counters.corruptions(CorruptionCause.NETWORK_ISSUE));
    assertEquals(0, counters.corruptions(CorruptionCause.DISK_ISSUE));
  }

  @Test
  void anOwnerThatCantBeAskedLeavesTheCauseUnknownAndTheFailureAFetchFailure() throws Exception {
    Path data = commit(4);
    damage(data, (byte) 42);
    BlockFetchException e =
        readFails(
            4,
            false,
            (owner, application, request) ->
                client.locatorClient().locate(owner, application, request));
    assertEquals(BlockFetchException.Kind.CHECKSUM, e.kind());
    assertTrue(e.kind().blamesMapOutput());
    assertTrue(e.getMessage().contains("is corrupted but the cause is unknown"), e.getMessage());
    assertEquals(1, counters.corruptions(CorruptionCause.UNKNOWN_ISSUE));
  }

  @Test
  void spark36206Rule() {
    assertEquals(CorruptionCause.DISK_ISSUE, CorruptionDiagnosis.cause(1, 2, 3, true));
    assertEquals(CorruptionCause.DISK_ISSUE, CorruptionDiagnosis.cause(1, 2, 2, false));
    assertEquals(CorruptionCause.NETWORK_ISSUE, CorruptionDiagnosis.cause(1, 2, 1, true));
    assertEquals(CorruptionCause.UNKNOWN_ISSUE, CorruptionDiagnosis.cause(1, 2, 1, false));
    assertEquals(CorruptionCause.CHECKSUM_VERIFY_PASS, CorruptionDiagnosis.cause(1, 1, 1, true));
  }

  @Test
  void checksumCallsRoundTripAndRejectBadBytes() {
    ChecksumRequest r = new ChecksumRequest("7", "12", 3);
    assertEquals(r, ChecksumLayout.decodeRequest(ChecksumLayout.encode(r)));
    ChecksumAnswer a =
        ChecksumAnswer.ok(io.rdmashuffle.mapoutput.ChecksumAlgorithm.CRC32C, 5, -6, 1234);
    assertEquals(a, ChecksumLayout.decodeAnswer(ChecksumLayout.encode(a)));
    ChecksumAnswer f = ChecksumAnswer.failed(ChecksumAnswer.Status.NOT_FOUND, "gone");
    assertEquals(f, ChecksumLayout.decodeAnswer(ChecksumLayout.encode(f)));
    ByteBuffer cut = ChecksumLayout.encode(r);
    cut.limit(cut.limit() - 1);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ChecksumLayout.decodeRequest(cut));
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
  }
}
