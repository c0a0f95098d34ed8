/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.MetaFileLayout;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.CallRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locates as wide as a real job asks them, over real tcp locate calls: thousands of partitions per
 * map output, read the ways Spark's adaptive execution reads them (one map's whole range, coalesced
 * ranges, one skewed partition split across map ranges). Every block arrives with its bytes, and an
 * answer that would pass {@code call.maxAnswerBytes} is never a failure of a healthy owner.
 */
@Timeout(120)
class WideLocateTest {
  private static final String APP = "app-wide";
  private static final byte[] SECRET = "wide-locate-secret-012345".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;
  private final PublishedOutputs published = new PublishedOutputs();
  private final Map<Long, Path> files = new HashMap<>();
  private final Map<Long, long[]> lengthsOf = new HashMap<>();
  private NodeRuntime server;
  private NodeRuntime client;
  private final ReadCounters counters = new ReadCounters();

  private static RdmaConf conf(String maxAnswer) {
    return RdmaConf.of(
        TestSchema.SPARK_KEYS,
        Map.of(
            "spark.shuffle.rdma.transport", "tcp",
            "spark.shuffle.rdma.read.timeout", "5s",
            "spark.shuffle.rdma.call.maxAnswerBytes", maxAnswer,
            "spark.shuffle.rdma.buffers.chunkSize", "1m",
            "spark.shuffle.rdma.buffers.maxBytes", "64m"));
  }

  /** A serving process whose answers are bounded by {@code serverMax}, a reader by its own. */
  private void start(String serverMax, String readerMax) throws Exception {
    server =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(conf(serverMax))
                .defaultHost("127.0.0.1")
                .serving(published)
                .reading(true));
    server.catalog().admit(APP, SECRET);
    client =
        NodeRuntime.start(
            new NodeRuntime.Context().conf(conf(readerMax)).defaultHost("127.0.0.1").reading(true));
    client.secrets().put(APP, SECRET);
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Commits {@code maps} map outputs of shuffle 1 with {@code partitions} small partitions. */
  private void commit(int maps, int partitions) throws IOException {
    for (long m = 0; m < maps; m++) {
      long[] lengths = new long[partitions];
      long total = 0;
      for (int p = 0; p < partitions; p++) {
        // some empty, most a few bytes: a wide, sparse shuffle
        lengths[p] = (p * 7 + m * 13) % 11 == 0 ? 0 : (p * 31 + m) % 40 + 1;
        total += lengths[p];
      }
      Path data = Patterns.file(dir.resolve("shuffle_1_" + m + "_0.data"), total, (int) m + 1);
      MetaFiles.commit(data, 1, m, lengths, null, null, true);
      published.publish(OutputId.spark(APP, 1, m), data);
      files.put(m, data);
      lengthsOf.put(m, lengths);
    }
  }

  private Locator locator;

  private BlockFetcher fetcher() {
    return new BlockFetcher(
        APP,
        locator == null ? client.locatorClient() : locator,
        null,
        client.connections(),
        client.buffers(),
        new FetchOptions(16L << 20, 16, 64 * 1024, false, true, 10_000, 2, 20),
        counters,
        client.fetchDriver(),
        () -> {});
  }

  private BlockSource source(long map, int[] partitions) {
    return new BlockSource(
        new Owner(server.transport().localAddress(), false, false),
        "1",
        Long.toString(map),
        partitions,
        null);
  }

  private static int[] range(int start, int end) {
    return IntStream.range(start, end).toArray();
  }

  /**
   * One reduce task: reads partitions {@code partitions} of maps {@code [firstMap, endMap)} and
   * checks every block's bytes against its file.
   */
  private void readAndCheck(int firstMap, int endMap, int[] partitions) throws Exception {
    Map<String, byte[]> got = new HashMap<>();
    try (BlockFetcher f = fetcher()) {
      for (long m = firstMap; m < endMap; m++) {
        f.add(source(m, partitions));
      }
      Block b;
      while ((b = f.next()) != null) {
        try (InputStream in = b.stream()) {
          byte[] bytes = in.readAllBytes();
          assertNull(got.put(b.source().map() + "/" + b.partition(), bytes), "twice: " + b);
        }
      }
    }
    assertEquals((endMap - firstMap) * partitions.length, got.size(), "every block read");
    for (long m = firstMap; m < endMap; m++) {
      byte[] all = Files.readAllBytes(files.get(m));
      long[] lengths = lengthsOf.get(m);
      long[] starts = new long[lengths.length];
      for (int p = 1; p < lengths.length; p++) {
        starts[p] = starts[p - 1] + lengths[p - 1];
      }
      for (int p : partitions) {
        byte[] want = new byte[(int) lengths[p]];
        System.arraycopy(all, (int) starts[p], want, 0, want.length);
        assertArrayEquals(want, got.get(m + "/" + p), "map " + m + " partition " + p);
      }
    }
    assertEquals(0, client.buffers().lentBytes(), "every READ buffer back in the pool");
  }

  @Test
  void thirtyTwoMapsOfTwoThousandPartitionsAreReadFromAHealthyOwner() throws Exception {
    // the union of 32 maps x 2000 partitions is about 1.3 MB of answer, past call.maxAnswerBytes
    start("1m", "1m");
    commit(32, 2000);
    readAndCheck(0, 32, range(0, 2000));
    assertNoRetriesNorFailures();
    // 2000 partitions of 28 bytes (planned): 18 maps an answer, 2 calls
    assertEquals(2L, counters.snapshot().get("locates"));
  }

  private void assertNoRetriesNorFailures() {
    Map<String, Long> c = counters.snapshot();
    assertEquals(0L, c.get("retries"), c.toString());
    for (Map.Entry<String, Long> e : c.entrySet()) {
      if (e.getKey().startsWith("fetchFailures.")) {
        assertEquals(0L, e.getValue(), e.getKey());
      }
    }
  }

  @Test
  void adaptiveReadsOfTenThousandPartitionsReadEveryBlock() throws Exception {
    start("1m", "1m");
    commit(8, 10_000);
    // the local shuffle reader: one map's whole range
    readAndCheck(3, 4, range(0, 10_000));
    // coalesced partitions: wide ranges of every map
    readAndCheck(0, 8, range(0, 2_600));
    readAndCheck(0, 8, range(2_600, 10_000));
    // a skewed partition split across map ranges, and its neighbour coalesced with it
    readAndCheck(0, 3, new int[] {4_321});
    readAndCheck(3, 8, new int[] {4_321, 4_322});
    assertNoRetriesNorFailures();
    assertEquals(0L, server.catalog().metrics().snapshot().get("serve.deferred"));
  }

  @Test
  void aMapWiderThanOneAnswerIsLocatedInParts() throws Exception {
    // 10,000 partitions of one map are ~200 KB of answer: more than either side's bound
    start("64k", "64k");
    commit(2, 10_000);
    readAndCheck(0, 2, range(0, 10_000));
    assertTrue(counters.snapshot().get("locates") >= 8, counters.snapshot().toString());
    readAndCheck(1, 2, sparse(10_000, 7));
    assertNoRetriesNorFailures();
  }

  @Test
  void anOwnerWithASmallerBoundAnswersAPrefixAndIsAskedForTheRest() throws Exception {
    // the reader sizes its calls for 1 MiB; the owner answers at most 48 KiB of them at a time
    start("48k", "1m");
    commit(16, 3_000);
    readAndCheck(0, 16, range(0, 3_000));
    readAndCheck(0, 16, sparse(3_000, 5));
    assertNoRetriesNorFailures();
    assertTrue(server.catalog().metrics().snapshot().get("serve.deferred") > 0);
  }

  @Test
  void anOwnerThatRefusesAnAnswerAsTooLargeIsAskedForLess() throws Exception {
    // an owner without deferred answers (an older one) refuses what passes its bound
    start("1m", "1m");
    commit(12, 2_000);
    int bound = 40 * 1024;
    AtomicInteger refusals = new AtomicInteger();
    locator =
        (owner, app, r) ->
            CompletableFuture.supplyAsync(() -> server.locator().answer(app, r))
                .thenCompose(
                    a -> {
                      if (LocateLayout.encode(a).remaining() <= bound) {
                        return CompletableFuture.completedFuture(a);
                      }
                      refusals.incrementAndGet();
                      return CompletableFuture.failedFuture(
                          new CallRefusedException(
                              CallRefusedException.TOO_LARGE,
                              "answer exceeds call.maxAnswerBytes"));
                    });
    readAndCheck(0, 12, range(0, 2_000));
    assertTrue(refusals.get() > 0);
    assertNoRetriesNorFailures();
  }

  @Test
  void theOwnerAnswersAPrefixWithinItsBoundAndLocatesNothingItCantSend() throws Exception {
    start("1m", "1m");
    commit(40, 2_000);
    List<String> maps = new ArrayList<>();
    for (int m = 0; m < 40; m++) {
      maps.add(Integer.toString(m));
    }
    LocateAnswer a = server.locator().answer(APP, new LocateRequest("1", maps, 0, 2_000, false));
    int k = 0;
    while (a.maps().get(k).status() == LocateAnswer.Status.OK) {
      k++;
    }
    assertTrue(
        k >= 20 && k < 40, "k=" + k + " " + a.maps().get(k)); // 2000 x 20 bytes: about 26 maps fit
    for (int i = k; i < 40; i++) {
      assertEquals(LocateAnswer.Status.DEFERRED, a.maps().get(i).status(), "map " + i);
    }
    assertTrue(LocateLayout.encode(a).remaining() <= 1 << 20);
    assertEquals(k, server.catalog().registeredOutputs(), "the deferred ones not registered");
    // the widest request there may be: 1024 maps x 16M partitions, answered at once, all deferred
    List<String> many = new ArrayList<>();
    for (int m = 0; m < LocateRequest.MAX_MAPS; m++) {
      many.add(Integer.toString(m));
    }
    LocateAnswer wide =
        server
            .locator()
            .answer(APP, new LocateRequest("1", many, 0, MetaFileLayout.MAX_PARTITIONS, false));
    assertEquals(LocateRequest.MAX_MAPS, wide.maps().size());
    assertTrue(wide.maps().stream().allMatch(e -> e.status() == LocateAnswer.Status.DEFERRED));
    assertTrue(LocateLayout.encode(wide).remaining() <= 1 << 20);
    assertEquals(k, server.catalog().registeredOutputs());
  }

  /** Every {@code step}th partition of {@code [0, n)}. */
  private static int[] sparse(int n, int step) {
    List<Integer> out = new ArrayList<>();
    for (int p = 0; p < n; p += step) {
      out.add(p);
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }
}
