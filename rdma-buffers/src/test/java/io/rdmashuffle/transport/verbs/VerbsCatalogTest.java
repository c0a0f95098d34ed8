/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.fetch.Block;
import io.rdmashuffle.fetch.BlockFetcher;
import io.rdmashuffle.fetch.BlockSource;
import io.rdmashuffle.fetch.FetchOptions;
import io.rdmashuffle.fetch.Owner;
import io.rdmashuffle.fetch.ReadCounters;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.serve.ServingMetrics;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.TestSchema;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving core on real verbs in the Soft-RoCE guest, with map outputs several times the bound
 * on pinned bytes: every block is READ remotely and is right, and nothing falls off the READ path.
 * Where served files are pinned (Linux 6.1's rxe has no on-demand paging; 7.3's stock rxe returns
 * wrong bytes on demand, so {@code auto} pins there) the catalog deregisters the least recently
 * used outputs to stay within {@code serve.maxPinnedBytes} and registers them again when asked for
 * (counted). Registered on demand ({@code auto} on an rxe with the fix) nothing is pinned and the
 * bound never bites; with {@code -Drdma.test.odp=true} the run asks for that, and thousands of
 * outputs far beyond the pinned bound are each registered once and never evicted.
 */
@EnabledIf("io.rdmashuffle.transport.verbs.VerbsTransportTest#verbsAvailable")
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class VerbsCatalogTest {
  private static final String APP = "app-catalog";
  private static final byte[] SECRET = "catalog-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final String SERVER = System.getProperty("rdma.test.serverHost", "198.18.100.1");
  private static final String CLIENT = System.getProperty("rdma.test.clientHost", "198.18.100.2");
  private static final long TIMEOUT_SECONDS = Long.getLong("rdma.test.readTimeoutSeconds", 30);
  private static final long MIB = 1 << 20;
  private static final long BOUND = 64 * MIB;
  private static final int OUTPUTS = 4;

  /** Each output's partitions: a few small ones and one larger than a READ segment. */
  private static final long[] LENGTHS = {5000, 0, 40 * MIB, 123_457, 1};

  private static final int[] WANTED = {0, 2, 3, 4};

  @TempDir Path dir;

  private static RdmaConf conf() {
    return conf(Map.of());
  }

  private static RdmaConf conf(Map<String, String> more) {
    Map<String, String> m =
        new HashMap<>(
            Map.of(
                "spark.shuffle.rdma.transport", "verbs",
                "spark.shuffle.rdma.read.timeout", TIMEOUT_SECONDS + "s",
                "spark.shuffle.rdma.connect.timeout", 3 * TIMEOUT_SECONDS + "s",
                "spark.shuffle.rdma.buffers.maxBytes", "64m",
                "spark.shuffle.rdma.serve.maxPinnedBytes", "64m"));
    m.putAll(more);
    return RdmaConf.of(TestSchema.SPARK_KEYS, m);
  }

  /** Outputs of the scale test: together twice the pinned bound. */
  private static final int MANY = 2048;

  private static final long MANY_LENGTH = 2 * BOUND / MANY;

  /** The partition READ of each output: its first bytes (the rest of the file is a hole). */
  private static final int MANY_READ = 4096;

  static boolean odpRequested() {
    return VerbsOdpTransportTest.odpRequested();
  }

  /**
   * On demand ({@code auto}, where the device's on-demand READs are right), thousands of outputs
   * whose bytes are twice {@code serve.maxPinnedBytes}, each READ twice (all, then all again): each
   * is registered once, nothing is evicted, nothing pinned, every byte right. The files are sparse
   * beyond the 4 KiB partition READ of each (registration covers the whole file; the guest's
   * emulated CPU would take minutes to write and READ 128 MiB of them). The open-output bound
   * ({@code serve.maxOpenOutputs}, files and mappings) is set above their number, as an operator
   * sizes it by the process's open-file limit and {@code vm.max_map_count}.
   */
  @Test
  @EnabledIf("odpRequested")
  void onDemandThousandsOfOutputsBeyondThePinnedBoundAreEachRegisteredOnce() throws Exception {
    PublishedOutputs published = new PublishedOutputs();
    RdmaConf conf = conf(Map.of("spark.shuffle.rdma.serve.maxOpenOutputs", "4096"));
    try (NodeRuntime server =
            NodeRuntime.start(
                new NodeRuntime.Context()
                    .conf(conf)
                    .defaultHost(SERVER)
                    .serving(published)
                    .reading(false));
        NodeRuntime client =
            NodeRuntime.start(
                new NodeRuntime.Context().conf(conf).defaultHost(CLIENT).reading(true))) {
      assertFalse(
          server.transport().registrar().pinsMemory(),
          "-Drdma.test.odp=true, but verbs.registration=auto pins served memory here");
      server.catalog().admit(APP, SECRET);
      client.secrets().put(APP, SECRET);
      long[] lengths = {MANY_READ, MANY_LENGTH - MANY_READ};
      for (int m = 0; m < MANY; m++) {
        Path data = Patterns.file(dir.resolve("shuffle_2_" + m + "_0.data"), MANY_READ, m + 1);
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(data.toFile(), "rw")) {
          f.setLength(MANY_LENGTH);
        }
        MetaFiles.commit(data, 2, m, lengths, null, null, true);
        published.publish(OutputId.spark(APP, 2, m), data);
      }
      ServingMetrics sm = server.catalog().metrics();
      ReadCounters counters = new ReadCounters();
      for (int round = 0; round < 2; round++) {
        try (BlockFetcher f =
            new BlockFetcher(
                APP,
                client.locatorClient(),
                null,
                client.connections(),
                client.buffers(),
                new FetchOptions(48 * MIB, 64, (int) (8 * MIB), false, true, 60_000, 2, 100),
                counters,
                client.fetchDriver(),
                () -> {})) {
          for (int m = 0; m < MANY; m++) {
            f.add(
                new BlockSource(
                    new Owner(server.transport().localAddress(), false, false),
                    "2",
                    Integer.toString(m),
                    new int[] {0},
                    "map " + m));
          }
          int blocks = 0;
          Block b;
          while ((b = f.next()) != null) {
            int m = Integer.parseInt(b.source().map());
            byte[] all = Files.readAllBytes(dir.resolve("shuffle_2_" + m + "_0.data"));
            try (InputStream in = b.stream()) {
              assertArrayEquals(
                  Arrays.copyOfRange(all, 0, MANY_READ), in.readAllBytes(), "map " + m);
            }
            blocks++;
          }
          assertEquals(MANY, blocks, "round " + round);
        }
      }
      System.out.println("on demand, " + MANY + " outputs: serving " + sm.snapshot());
      assertEquals(MANY, sm.registrations(), "one registration per output: " + sm.snapshot());
      assertEquals(0, sm.evictions(), sm.snapshot().toString());
      assertEquals(0, sm.reRegistrations(), sm.snapshot().toString());
      assertEquals(0, sm.pinnedBytes(), sm.snapshot().toString());
    }
  }

  @Test
  void outputsSeveralTimesThePinnedBoundAreAllReadAndTheBoundHolds() throws Exception {
    PublishedOutputs published = new PublishedOutputs();
    try (NodeRuntime server =
            NodeRuntime.start(
                new NodeRuntime.Context()
                    .conf(conf())
                    .defaultHost(SERVER)
                    .serving(published)
                    .reading(false));
        NodeRuntime client =
            NodeRuntime.start(
                new NodeRuntime.Context().conf(conf()).defaultHost(CLIENT).reading(true))) {
      server.catalog().admit(APP, SECRET);
      client.secrets().put(APP, SECRET);
      Path[] data = new Path[OUTPUTS];
      long total = Arrays.stream(LENGTHS).sum();
      for (int m = 0; m < OUTPUTS; m++) {
        data[m] = Patterns.file(dir.resolve("shuffle_1_" + m + "_0.data"), total, m + 1);
        MetaFiles.commit(data[m], 1, m, LENGTHS, null, null, true);
        published.publish(OutputId.spark(APP, 1, m), data[m]);
        server.catalog().offer(OutputId.spark(APP, 1, m));
      }
      boolean pins = server.transport().registrar().pinsMemory();
      ServingMetrics sm = server.catalog().metrics();
      ReadCounters counters = new ReadCounters();
      // every output, then the first again: it was deregistered meanwhile when memory is pinned
      int[] order = {0, 1, 2, 3, 0};
      for (int m : order) {
        try (BlockFetcher f =
            new BlockFetcher(
                APP,
                client.locatorClient(),
                null,
                client.connections(),
                client.buffers(),
                new FetchOptions(48 * MIB, 8, (int) (8 * MIB), false, true, 60_000, 2, 100),
                counters,
                client.fetchDriver(),
                () -> {})) {
          f.add(
              new BlockSource(
                  new Owner(server.transport().localAddress(), false, false),
                  "1",
                  Integer.toString(m),
                  WANTED,
                  "map " + m));
          Map<Integer, byte[]> got = new HashMap<>();
          Block b;
          while ((b = f.next()) != null) {
            try (InputStream in = b.stream()) {
              got.put(b.partition(), in.readAllBytes());
            }
          }
          byte[] all = Files.readAllBytes(data[m]);
          for (int p : WANTED) {
            long start = 0;
            for (int q = 0; q < p; q++) {
              start += LENGTHS[q];
            }
            assertArrayEquals(
                Arrays.copyOfRange(all, (int) start, (int) (start + LENGTHS[p])),
                got.get(p),
                "map " + m + " partition " + p);
          }
        }
        assertTrue(sm.pinnedBytes() <= BOUND, "pinned " + sm.pinnedBytes() + " > " + BOUND);
      }
      System.out.println(
          "pins=" + pins + " serving " + sm.snapshot() + " reading " + counters.snapshot());
      if (pins) {
        assertTrue(sm.evictions() >= OUTPUTS - 1, "evictions: " + sm.snapshot());
        assertTrue(sm.reRegistrations() >= 1, "re-registrations: " + sm.snapshot());
      } else {
        assertEquals(0, sm.pinnedBytes(), sm.snapshot().toString());
        assertEquals(0, sm.evictions(), "nothing pinned, nothing to evict: " + sm.snapshot());
      }
    }
  }
}
