/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ServerAndReader;
import io.rdmashuffle.testing.TestSchema;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * More concurrent readers of one owner than it may keep outputs registered (the review's scenario:
 * {@code serve.maxOpenOutputs=4}, 6 readers of 48 outputs each): every reader gets every byte, no
 * healthy output is blamed, no READ finds its registration withdrawn (a located output stays leased
 * to its reader), and outputs are registered about once per reader, not thrashed.
 */
@Timeout(180)
class CrowdedOwnerTest {
  private static final String APP = "app-crowded";
  private static final byte[] SECRET = "crowded-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final int MAPS = 48;
  private static final int READERS = 6;
  private static final long[] LENGTHS = {3000, 5000, 0, 7000, 2000, 9000};

  @TempDir Path dir;
  private final PublishedOutputs published = new PublishedOutputs();
  private final List<Path> files = new ArrayList<>();
  private ServerAndReader processes;
  private NodeRuntime server;
  private NodeRuntime client;
  private final ReadCounters counters = new ReadCounters();

  @BeforeEach
  void start() throws Exception {
    Map<String, String> settings =
        Map.of(
            "spark.shuffle.rdma.transport", "tcp",
            "spark.shuffle.rdma.read.timeout", "10s",
            "spark.shuffle.rdma.serve.maxOpenOutputs", "4",
            "spark.shuffle.rdma.buffers.chunkSize", "1m",
            "spark.shuffle.rdma.buffers.maxBytes", "64m");
    RdmaConf conf = RdmaConf.of(TestSchema.SPARK_KEYS, settings);
    processes = new ServerAndReader(conf, published, APP, SECRET);
    server = processes.server;
    client = processes.client;
    long total = 0;
    for (long l : LENGTHS) {
      total += l;
    }
    for (long m = 0; m < MAPS; m++) {
      Path data = Patterns.file(dir.resolve("shuffle_1_" + m + "_0.data"), total, (int) m);
      MetaFiles.commit(data, 1, m, LENGTHS, null, null, true);
      published.publish(OutputId.spark(APP, 1, m), data);
      files.add(data);
    }
  }

  @AfterEach
  void stop() {
    processes.close();
  }

  /** Reader {@code r} reads two partitions of every map, and checks each block's bytes. */
  private int read(int r) throws Exception {
    int[] wanted = {r % LENGTHS.length, (r + 3) % LENGTHS.length};
    java.util.Arrays.sort(wanted);
    int blocks = 0;
    try (BlockFetcher f =
        new BlockFetcher(
            APP,
            client.locatorClient(),
            null,
            client.connections(),
            client.buffers(),
            new FetchOptions(256 * 1024, 64, 64 * 1024, false, true, 10_000, 3, 100),
            counters,
            client.fetchDriver(),
            () -> {})) {
      for (int i = 0; i < MAPS; i++) {
        int m = (i + r * 7) % MAPS; // each reader in its own order
        f.add(
            new BlockSource(
                new Owner(server.transport().localAddress(), false, false),
                "1",
                Integer.toString(m),
                wanted,
                "map " + m));
      }
      Block b;
      while ((b = f.next()) != null) {
        try (InputStream in = b.stream()) {
          byte[] got = in.readAllBytes();
          int m = Integer.parseInt(b.source().map());
          byte[] all = Files.readAllBytes(files.get(m));
          long start = 0;
          for (int p = 0; p < b.partition(); p++) {
            start += LENGTHS[p];
          }
          byte[] want = java.util.Arrays.copyOfRange(all, (int) start, (int) start + got.length);
          assertEquals(LENGTHS[b.partition()], got.length);
          assertArrayEquals(want, got, "map " + m + " partition " + b.partition());
          blocks++;
        }
      }
    }
    return blocks;
  }

  @Test
  void moreReadersThanRegistrationsAllReadEveryByteWithoutThrashing() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(READERS);
    try {
      List<Future<Integer>> readers = new ArrayList<>();
      for (int r = 0; r < READERS; r++) {
        int reader = r;
        readers.add(pool.submit(() -> read(reader)));
      }
      for (Future<Integer> r : readers) {
        try {
          assertEquals(2 * MAPS, r.get(), "every block of every map");
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError(
              "a reader failed; owner: "
                  + server.catalog().metrics().snapshot()
                  + ", readers: "
                  + counters.snapshot(),
              e.getCause());
        }
      }
    } finally {
      pool.shutdownNow();
    }
    Map<String, Long> c = counters.snapshot();
    System.out.println("owner: " + server.catalog().metrics().snapshot() + "; readers: " + c);
    assertEquals(0L, c.get("relocates"), "no READ found its registration withdrawn: " + c);
    for (BlockFetchException.Kind k : BlockFetchException.Kind.values()) {
      assertEquals(0L, counters.failures(k), k + ": " + c);
    }
    long registrations = server.catalog().metrics().registrations();
    assertTrue(
        registrations <= (long) READERS * MAPS,
        "at most once per reader and output, not thrashed: " + registrations);
    assertTrue(server.catalog().registeredOutputs() <= 4);
  }
}
