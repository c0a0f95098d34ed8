/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ServerAndReader;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.LocalSideException;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reduce-side core against a real serving process's catalog and real tcp READs, without any
 * engine: remote, own-process and same-host blocks, checksums, lost outputs, withdrawn
 * registrations, the reader's own shortage, and what closing releases.
 */
@Timeout(60)
class BlockFetcherTest {
  private static final String APP = "app-blocks";
  private static final byte[] SECRET = "block-fetcher-secret-0123".getBytes(StandardCharsets.UTF_8);
  private static final int SEGMENT = 64 * 1024;
  // small, empty, consecutive small (one READ), bigger than a segment and than a piece
  private static final long[] LENGTHS = {100, 0, 5000, 7000, 300_000, 1, 65_536, 0, 12_345};
  private static final int[] WANTED = {0, 2, 3, 4, 5, 6, 8};

  @TempDir Path dir;
  private final PublishedOutputs published = new PublishedOutputs();
  private ServerAndReader processes;
  private NodeRuntime server;
  private NodeRuntime client;
  private final ReadCounters counters = new ReadCounters();
  private final AtomicInteger locates = new AtomicInteger();

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
                "spark.shuffle.rdma.buffers.maxBytes", "64m",
                // one call at a time to an owner: its readers' locate calls wait, and merge
                "spark.shuffle.rdma.call.workers", "1"));
    processes = new ServerAndReader(conf, published, APP, SECRET);
    server = processes.server;
    client = processes.client;
  }

  @AfterEach
  void stop() {
    processes.close();
  }

  /** The owner's answers, straight from its locate service (the call itself is the transport's). */
  private CompletableFuture<LocateAnswer> locate(
      PeerAddress owner, String app, io.rdmashuffle.mapoutput.LocateRequest r) {
    locates.incrementAndGet();
    assertEquals(server.transport().localAddress(), owner);
    return CompletableFuture.supplyAsync(() -> server.locator().answer(app, r));
  }

  /** Map outputs {@code first} to {@code first + maps - 1} committed, by index from 0. */
  private Map<Long, Path> commitMaps(long first, int maps) throws IOException {
    Map<Long, Path> data = new HashMap<>();
    for (long m = 0; m < maps; m++) {
      data.put(m, commit(first + m));
    }
    return data;
  }

  /**
   * Locates through {@code locate}; releases reach the server and are counted in {@code released}.
   */
  private Locator releasesCounted(AtomicInteger released, Locator locate) {
    return new Locator() {
      @Override
      public CompletableFuture<LocateAnswer> locate(
          PeerAddress owner, String app, io.rdmashuffle.mapoutput.LocateRequest r) {
        return locate.locate(owner, app, r);
      }

      @Override
      public void release(
          PeerAddress owner, String app, io.rdmashuffle.mapoutput.ReleaseRequest r) {
        released.addAndGet(r.maps().size());
        server.locator().release(app, r);
      }
    };
  }

  /** A committed map output {@code map} of shuffle 1 on the server. */
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

  private static byte[] expected(Path data, int partition) throws IOException {
    byte[] all = Files.readAllBytes(data);
    long start = 0;
    for (int p = 0; p < partition; p++) {
      start += LENGTHS[p];
    }
    byte[] out = new byte[(int) LENGTHS[partition]];
    System.arraycopy(all, (int) start, out, 0, out.length);
    return out;
  }

  private static FetchOptions options(boolean readLocal, long maxBytes) {
    return new FetchOptions(maxBytes, 8, SEGMENT, readLocal, true, 2000, 2, 20);
  }

  private BlockFetcher fetcher(boolean readLocal, long maxBytes) {
    return new BlockFetcher(
        APP,
        this::locate,
        server.catalog(),
        client.connections(),
        client.buffers(),
        options(readLocal, maxBytes),
        counters,
        client.fetchDriver(),
        () -> {});
  }

  private BlockSource source(long map, boolean sameHost, boolean own) {
    return new BlockSource(
        new Owner(server.transport().localAddress(), sameHost, own),
        "1",
        Long.toString(map),
        WANTED,
        "map " + map);
  }

  /** Reads every block; (map, partition) to bytes. */
  private static Map<String, byte[]> readAll(BlockFetcher f) throws Exception {
    Map<String, byte[]> out = new HashMap<>();
    Block b;
    while ((b = f.next()) != null) {
      try (InputStream in = b.stream()) {
        byte[] bytes = in.readAllBytes();
        assertEquals(b.size(), bytes.length);
        assertNull(out.put(b.source().map() + "/" + b.partition(), bytes), "twice: " + b);
      }
    }
    return out;
  }

  private void assertAllBlocks(Map<String, byte[]> got, long map, Path data) throws IOException {
    for (int p : WANTED) {
      assertArrayEquals(
          expected(data, p), got.get(map + "/" + p), "map " + map + " partition " + p);
    }
  }

  @Test
  void remoteBlocksArriveExactlyAndOneLocateServesABatchOfMaps() throws Exception {
    Path a = commit(10);
    Path b = commit(11);
    try (BlockFetcher f = fetcher(false, 256 * 1024)) {
      f.add(source(10, false, false));
      f.add(source(11, false, false));
      Map<String, byte[]> got = readAll(f);
      assertEquals(2 * WANTED.length, got.size());
      assertAllBlocks(got, 10, a);
      assertAllBlocks(got, 11, b);
    }
    assertEquals(1, locates.get(), "one call for both map outputs of the owner");
    assertEquals(2 * WANTED.length, counters.snapshot().get("blocksRemote"));
    assertEquals(0, client.buffers().lentBytes(), "every READ buffer back in the pool");
  }

  @Test
  void ownAndSameHostBlocksAreReadFromTheirFiles() throws Exception {
    Path own = commit(20);
    Path near = commit(21);
    try (BlockFetcher f = fetcher(true, 256 * 1024)) {
      f.add(source(20, true, true));
      f.add(source(21, true, false));
      Map<String, byte[]> got = readAll(f);
      assertAllBlocks(got, 20, own);
      assertAllBlocks(got, 21, near);
    }
    assertEquals(1, locates.get(), "only the same-host output is located, the own one is not");
    assertEquals(0L, counters.snapshot().get("blocksRemote"));
    assertEquals(0, server.catalog().registeredOutputs(), "nothing registered for local reads");
  }

  /**
   * A consumer can take the blocks that follow each other in one map output as a run (Spark reads
   * contiguous partitions of a map output as one stream): each run is the next partitions asked for
   * of one output, in order, and the runs and the blocks handed over alone are every block once.
   */
  @Test
  void theBlocksThatFollowInAMapOutputAreHandedOverAsARun() throws Exception {
    Path a = commit(30);
    Path b = commit(31);
    Path c = commit(32);
    List<List<Block>> runs = new ArrayList<>();
    Map<String, byte[]> got = new HashMap<>();
    try (BlockFetcher f = fetcher(true, 256 * 1024)) {
      f.add(source(30, true, true));
      f.add(source(31, true, true));
      f.add(source(32, false, false));
      Block first;
      while ((first = f.next()) != null) {
        List<Block> run = new ArrayList<>(List.of(first));
        Block next;
        while ((next = f.nextFollowing(run.get(run.size() - 1))) != null) {
          run.add(next);
        }
        runs.add(run);
        for (Block x : run) {
          try (InputStream in = x.stream()) {
            assertNull(got.put(x.source().map() + "/" + x.partition(), in.readAllBytes()));
          }
        }
      }
    }
    assertAllBlocks(got, 30, a);
    assertAllBlocks(got, 31, b);
    assertAllBlocks(got, 32, c);
    assertEquals(3 * WANTED.length, got.size());
    for (List<Block> run : runs) {
      int from = Arrays.binarySearch(WANTED, run.get(0).partition());
      for (int i = 0; i < run.size(); i++) {
        assertSame(run.get(0).source(), run.get(i).source(), "one map output per run");
        assertEquals(WANTED[from + i], run.get(i).partition(), "the partitions in order");
      }
    }
    // this process's own blocks are all ready at once: one run for each of its outputs
    assertEquals(WANTED.length, runs.get(0).size(), "own output 30: " + runs.get(0));
    assertEquals(WANTED.length, runs.get(1).size(), "own output 31: " + runs.get(1));
    assertFalse(
        BlockFetcher.follows(runs.get(0).get(WANTED.length - 1), runs.get(1).get(0)),
        "another map output's first block never follows");
  }

  /**
   * Remote work never waits for the consumer to run out of local blocks: while the task holds its
   * first block of this process (and reads nothing more), the remote map output is located, its
   * READs planned, posted and completed, as Spark sends its remote requests before it reads local
   * blocks.
   */
  @Test
  void remoteReadsGoOutWhileTheConsumerReadsLocalBlocks() throws Exception {
    Path own = commit(70);
    Path remote = commit(71);
    try (BlockFetcher f = fetcher(true, 256 * 1024)) {
      f.add(source(70, true, true));
      f.add(source(71, false, false));
      Block first = f.next();
      assertFalse(first.remote(), "this process's blocks are ready first");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (client.metrics().readsCompleted() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertTrue(
          client.metrics().readsCompleted() > 0,
          "the remote map output's READs ended while the consumer held its first local block");
      Map<String, byte[]> got = new HashMap<>();
      got.put("70/" + first.partition(), first.stream().readAllBytes());
      first.release();
      got.putAll(readAll(f));
      assertAllBlocks(got, 70, own);
      assertAllBlocks(got, 71, remote);
    }
  }

  /**
   * {@code got} holds exactly partitions {@code partitions} of every map output of {@code data}
   * (committed as map {@code first} + its key), each with its bytes.
   */
  private static void assertEveryBlock(
      Map<String, byte[]> got, Map<Long, Path> data, long first, int[] partitions)
      throws IOException {
    assertEquals(data.size() * partitions.length, got.size());
    for (Map.Entry<Long, Path> d : data.entrySet()) {
      for (int p : partitions) {
        assertArrayEquals(
            expected(d.getValue(), p),
            got.get((first + d.getKey()) + "/" + p),
            "map " + d.getKey() + " part " + p);
      }
    }
  }

  /**
   * A started reader of {@code maps} remote map outputs from {@code first} on, partitions {@code
   * partitions} of each, located through {@code locator}.
   */
  private BlockFetcher remoteReader(Locator locator, long first, int maps, int[] partitions)
      throws BlockFetchException {
    return remoteReader(locator, client.fetchDriver(), first, maps, partitions);
  }

  /** As {@link #remoteReader(Locator, long, int, int[])}, driven by {@code driver}. */
  private BlockFetcher remoteReader(
      Locator locator, Executor driver, long first, int maps, int[] partitions)
      throws BlockFetchException {
    BlockFetcher f =
        new BlockFetcher(
            APP,
            locator,
            null,
            client.connections(),
            client.buffers(),
            options(false, 16L << 20),
            counters,
            driver,
            () -> {});
    for (long m = 0; m < maps; m++) {
      f.add(
          new BlockSource(
              new Owner(server.transport().localAddress(), false, false),
              "1",
              Long.toString(first + m),
              partitions,
              null));
    }
    f.start();
    return f;
  }

  /**
   * An owner's map outputs are located a few batches at a time; a batch ends when its blocks are
   * here (READ into this task's buffers), not when the consumer has taken them. So while the
   * consumer is busy elsewhere (its local blocks, a slow operator) every batch of every owner is
   * located and READ in turn, and the owner hears at once that this reader is done with each.
   */
  @Test
  void everyBatchIsLocatedAndReleasedWhileTheConsumerTakesNothing() throws Exception {
    int maps = 3 * Locates.BATCH + 4;
    int[] small = {0, 2, 3, 5}; // a READ each: the window holds every one of them
    Map<Long, Path> data = commitMaps(100, maps);
    AtomicInteger asked = new AtomicInteger();
    AtomicInteger released = new AtomicInteger();
    Locator counting =
        releasesCounted(
            released,
            (owner, app, r) -> {
              asked.addAndGet(r.maps().size());
              return locate(owner, app, r);
            });
    try (BlockFetcher f = remoteReader(counting, 100, maps, small)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while ((asked.get() < maps || released.get() < maps) && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(maps, asked.get(), "map outputs located before the consumer took a block");
      assertEquals(maps, released.get(), "map outputs released before the consumer took a block");
      assertEveryBlock(readAll(f), data, 100, small);
    }
    assertEquals(maps, asked.get(), "each map output located once");
    assertEquals(0, client.buffers().lentBytes(), "every READ buffer back in the pool");
  }

  /**
   * An answer that arrives while the reader is still starting (the owner answered at once, as a
   * call within this process can) finds the driver locked out by the starting thread: the start
   * hands it on when it lets go, so its READs go out and its leases end while the consumer takes
   * nothing. (Lost before: all of a reader's answers came in while it started, under load, and
   * nothing moved until the consumer asked for a block.)
   */
  @Test
  void anAnswerThatArrivesWhileTheReaderStartsIsDrivenWithoutTheConsumer() throws Exception {
    int maps = Locates.BATCH;
    int[] small = {0, 2, 3, 5};
    Map<Long, Path> data = commitMaps(5000, maps);
    AtomicInteger released = new AtomicInteger();
    Locator atOnce =
        releasesCounted(
            released,
            (owner, app, r) -> CompletableFuture.completedFuture(server.locator().answer(app, r)));
    // the first drive runs, and ends, while the starting thread still holds the reader
    AtomicBoolean first = new AtomicBoolean(true);
    Executor driver =
        task -> {
          if (!first.getAndSet(false)) {
            client.fetchDriver().execute(task);
            return;
          }
          Thread t = new Thread(task, "first-drive");
          t.start();
          try {
            t.join();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    try (BlockFetcher f = remoteReader(atOnce, driver, 5000, maps, small)) {
      assertFalse(first.get(), "the answer came while the reader started");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (released.get() < maps && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(maps, released.get(), "map outputs READ and released before any block taken");
      assertEveryBlock(readAll(f), data, 5000, small);
    }
    assertEquals(0, client.buffers().lentBytes(), "every READ buffer back in the pool");
  }

  /**
   * The readers of one process share their locate calls: beyond the owner's call workers (one here)
   * those that wait go out merged, each reader still READs exactly its own blocks, and every lease
   * the owner granted is released once the readers are done.
   */
  @Test
  void readersOfOneProcessShareTheirLocateCallsAndEndEveryLease() throws Exception {
    int maps = 4 * Locates.BATCH;
    Map<Long, Path> data = commitMaps(3000, maps);
    int[][] wanted = {{0, 2}, {3, 4}, {5, 6, 8}};
    List<BlockFetcher> readers = new ArrayList<>();
    try {
      for (int[] w : wanted) {
        readers.add(remoteReader(client.locatorClient(), 3000, maps, w));
      }
      for (int i = 0; i < wanted.length; i++) {
        assertEveryBlock(readAll(readers.get(i)), data, 3000, wanted[i]);
      }
    } finally {
      for (BlockFetcher f : readers) {
        f.close();
      }
    }
    var served = server.catalog().metrics();
    assertTrue(
        served.located() < (long) wanted.length * maps,
        served.located() + " map outputs located for " + wanted.length * maps + " asked");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (served.releases() < served.located() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(served.located(), served.releases(), "every lease granted, released");
  }

  /**
   * An owner whose call workers and queue are full refuses a locate call as busy: nobody's fault,
   * so the reader asks again with the backoff and patience of a BUSY answer, not the few attempts
   * of a broken transport, and no map output is blamed.
   */
  @Test
  void anOwnerWhoseCallQueueIsFullIsAskedAgainWithoutBlamingItsOutputs() throws Exception {
    int maps = 4;
    int[] wanted = {0, 2, 4};
    Map<Long, Path> data = commitMaps(4000, maps);
    AtomicInteger refused = new AtomicInteger();
    int refusals = options(false, 0).maxRetries() + 2; // more than a transport failure may have
    Locator queueFull =
        (owner, app, r) -> {
          if (refused.incrementAndGet() <= refusals) {
            return CompletableFuture.failedFuture(
                new io.rdmashuffle.transport.CallRefusedException(
                    io.rdmashuffle.transport.CallRefusedException.BUSY,
                    "every call worker is busy and the queue is full",
                    owner));
          }
          return locate(owner, app, r);
        };
    try (BlockFetcher f = remoteReader(queueFull, 4000, maps, wanted)) {
      assertEveryBlock(readAll(f), data, 4000, wanted);
    }
    assertTrue(refused.get() > refusals, "asked again after " + refusals + " refusals");
    assertEquals(0, counters.value(ReadCounter.FETCH_FAILURES_TRANSPORT));
  }

  /** Locate calls held until the test answers them, by the owner or with BUSY. */
  private final class HeldLocates implements Locator {
    final Set<String> asked = ConcurrentHashMap.newKeySet();
    final List<Map.Entry<io.rdmashuffle.mapoutput.LocateRequest, CompletableFuture<LocateAnswer>>>
        held = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<LocateAnswer> locate(
        PeerAddress owner, String app, io.rdmashuffle.mapoutput.LocateRequest r) {
      asked.addAll(r.maps());
      CompletableFuture<LocateAnswer> f = new CompletableFuture<>();
      held.add(Map.entry(r, f));
      return f;
    }

    @Override
    public void release(PeerAddress owner, String app, io.rdmashuffle.mapoutput.ReleaseRequest r) {
      server.locator().release(app, r);
    }

    /** Answers the held call {@code i} as the owner does, or BUSY for every map it asks for. */
    synchronized void answer(int i, boolean busy) {
      var e = held.get(i);
      LocateAnswer a = server.locator().answer(APP, e.getKey());
      if (busy) {
        a =
            new LocateAnswer(
                a.transport(),
                a.responder(),
                e.getKey().maps().stream()
                    .map(
                        m ->
                            LocateAnswer.Located.failed(
                                m, LocateAnswer.Status.BUSY, "every registration is leased"))
                    .toList());
      }
      e.getValue().complete(a);
    }

    synchronized void answerAll() {
      for (int i = 0; i < held.size(); i++) {
        if (!held.get(i).getValue().isDone()) {
          answer(i, false);
        }
      }
    }
  }

  /**
   * A reader of one owner keeps up to {@link Locates#MAX_ACTIVE_PER_OWNER} of its batches in flight
   * (not two: a wide task's locate-then-READ round trips overlap), and an owner that answers BUSY
   * gets no more than {@link Locates#MIN_ACTIVE_PER_OWNER} from then on.
   */
  @Test
  void anOwnerGetsSeveralBatchesAtOnceUntilItAnswersBusy() throws Exception {
    int maps = 10 * Locates.BATCH;
    int[] small = {0, 2, 3, 5};
    Map<Long, Path> data = commitMaps(1000, maps);
    HeldLocates locator = new HeldLocates();
    Thread answering = null;
    try (BlockFetcher f = remoteReader(locator, 1000, maps, small)) {
      int eight = Locates.MAX_ACTIVE_PER_OWNER * Locates.BATCH;
      assertEquals(eight, locator.asked.size(), "map outputs located at once from one owner");
      locator.answer(0, true);
      for (int i = 1; i < Locates.MAX_ACTIVE_PER_OWNER; i++) {
        locator.answer(i, false);
      }
      // seven batches READ and done, the busy one waiting: one more batch, not two
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (locator.asked.size() < eight + Locates.BATCH && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      Thread.sleep(300);
      assertEquals(
          eight + Locates.BATCH,
          locator.asked.size(),
          "map outputs located once the owner answered BUSY");
      answering =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  locator.answerAll();
                  try {
                    Thread.sleep(5);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      answering.start();
      assertEveryBlock(readAll(f), data, 1000, small);
    } finally {
      if (answering != null) {
        answering.interrupt();
        answering.join();
      }
    }
    assertEquals(1, counters.snapshot().get("busyAnswers"));
  }

  @Test
  void aReaderSharesItsBatchesAmongTheOwnersThatLease() {
    assertEquals(8, Locates.activeFor(false, 1));
    assertEquals(8, Locates.activeFor(false, 2));
    assertEquals(5, Locates.activeFor(false, 3));
    assertEquals(2, Locates.activeFor(false, 8));
    assertEquals(2, Locates.activeFor(false, 100), "never fewer than two");
    assertEquals(8, Locates.activeFor(true, 100), "an owner answering local paths leases nothing");
  }

  @Test
  void aCorruptByteIsAChecksumFailureOfThatMapOutputWhicheverWayItIsRead() throws Exception {
    for (boolean local : new boolean[] {false, true}) {
      long map = local ? 31 : 30;
      Path data = commit(map);
      try (FileChannel ch = FileChannel.open(data, StandardOpenOption.WRITE)) {
        ch.write(java.nio.ByteBuffer.wrap(new byte[] {42}), 100 + 5000 + 7000 + 150_000);
      }
      try (BlockFetcher f = fetcher(local, 256 * 1024)) {
        f.add(source(map, local, false));
        BlockFetchException e = assertThrows(BlockFetchException.class, () -> readAll(f));
        assertEquals(BlockFetchException.Kind.CHECKSUM, e.kind(), e.getMessage());
        assertEquals(4, e.partition());
        assertTrue(e.kind().blamesMapOutput());
        assertEquals(Long.toString(map), e.source().map());
      }
    }
  }

  @Test
  void aMapOutputTheOwnerDoesNotHaveIsMissing() throws Exception {
    try (BlockFetcher f = fetcher(false, 256 * 1024)) {
      f.add(source(99, false, false));
      BlockFetchException e = assertThrows(BlockFetchException.class, () -> readAll(f));
      assertEquals(BlockFetchException.Kind.MISSING, e.kind());
      assertTrue(e.getMessage().contains("NOT_FOUND"), e.getMessage());
    }
  }

  /**
   * A failure the consumer dispatches itself at the top of {@link BlockFetcher#next} (the answer
   * arrived while it held the lock, so the driver thread left it to it) is thrown, not swallowed: a
   * fresh-clone CI run (2026-12-05) had next() answer "no more blocks" for a map output its owner
   * did not have, silently losing its blocks. The driver here never runs, so only the consumer
   * dispatches, after the answer is in.
   */
  @Test
  void aFailureTheConsumerDispatchesItselfIsThrownNotTheEndOfTheBlocks() throws Exception {
    try (BlockFetcher f =
        new BlockFetcher(
            APP,
            this::locate,
            server.catalog(),
            client.connections(),
            client.buffers(),
            options(false, 256 * 1024),
            counters,
            task -> {},
            () -> {})) {
      f.add(source(99, false, false));
      f.start();
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (counters.snapshot().get("locates") == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      Thread.sleep(300); // the NOT_FOUND answer is in the fetcher's queue
      BlockFetchException e = assertThrows(BlockFetchException.class, f::next);
      assertEquals(BlockFetchException.Kind.MISSING, e.kind());
    }
  }

  @Test
  void aRegistrationWithdrawnWhileReadingIsLocatedAgainNotFailed() throws Exception {
    Path data = commit(40);
    try (BlockFetcher f = fetcher(false, 128 * 1024)) {
      f.add(source(40, false, false));
      Block first = f.next();
      // the owner deregisters the output (LRU pressure, say) while the rest is being READ
      server.catalog().forget(OutputId.spark(APP, 1, 40));
      Map<String, byte[]> got = new HashMap<>();
      got.put("40/" + first.partition(), first.stream().readAllBytes());
      first.release();
      got.putAll(readAll(f));
      assertAllBlocks(got, 40, data);
    }
    assertTrue(counters.snapshot().get("relocates") >= 1, counters.snapshot().toString());
    assertEquals(2, server.catalog().metrics().registrations(), "registered again once");
  }

  /**
   * The registration withdrawn after the owner answered and before any READ: every READ is refused,
   * among them the one READ of partitions 0, 2 and 3 (small and consecutive). Asking again must
   * describe every block that READ carries: asked for its first partition alone, the answer did not
   * place the other two, and the fetcher failed a healthy output as described differently.
   */
  @Test
  void aRunOfSmallBlocksWithdrawnBeforeItIsReadIsLocatedAgainWhole() throws Exception {
    Path data = commit(41);
    java.util.concurrent.atomic.AtomicBoolean withdrawn =
        new java.util.concurrent.atomic.AtomicBoolean();
    try (BlockFetcher f =
        new BlockFetcher(
            APP,
            (o, app, r) ->
                locate(o, app, r)
                    .thenApply(
                        a -> {
                          if (withdrawn.compareAndSet(false, true)) {
                            server.catalog().forget(OutputId.spark(APP, 1, 41));
                          }
                          return a;
                        }),
            server.catalog(),
            client.connections(),
            client.buffers(),
            options(false, 256 * 1024),
            counters,
            client.fetchDriver(),
            () -> {})) {
      f.add(source(41, false, false));
      assertAllBlocks(readAll(f), 41, data);
    }
    assertTrue(counters.snapshot().get("relocates") >= 1, counters.snapshot().toString());
    assertEquals(0L, counters.snapshot().get("fetchFailures.invalid"));
  }

  /**
   * An output re-published under the same id while it is READ (its registration withdrawn, the new
   * file laid out otherwise): the READs planned from the first layout are not issued against the
   * second; the block fails as invalid and no byte of the one is mixed with the other.
   */
  @Test
  void anOutputRepublishedWithAnotherLayoutWhileReadIsInvalidNeverMixed() throws Exception {
    commit(42);
    // a window of one segment: in flight and held by the task together (3 x 64 KiB) are less than
    // the blocks wanted (~390 KB), so the 300,000-byte block can't all be read before the
    // republish (with 128 KiB they were: 4 runs in 12 read everything from the old layout first)
    try (BlockFetcher f = fetcher(false, SEGMENT)) {
      f.add(source(42, false, false));
      Block first = f.next();
      // the new file is published before the old registration goes: the driver thread relocates
      // as soon as a READ fails, and a locate that came before the publish registered the old
      // file again (4 runs in 14 under load: 8 relocations, every block from the old layout)
      long[] other = LENGTHS.clone();
      other[0] += 4096; // every later partition moves
      long total = 0;
      for (long l : other) {
        total += l;
      }
      Path again =
          Patterns.file(
              Files.createDirectories(dir.resolve("again")).resolve("shuffle_1_42_0.data"),
              total,
              77);
      MetaFiles.commit(again, 1, 42, other, null, null, true);
      published.publish(OutputId.spark(APP, 1, 42), again);
      server.catalog().forget(OutputId.spark(APP, 1, 42));
      first.release();
      BlockFetchException e = assertThrows(BlockFetchException.class, () -> readAll(f));
      assertEquals(BlockFetchException.Kind.INVALID, e.kind(), e.getMessage());
      assertTrue(e.getMessage().contains("differently"), e.getMessage());
    }
  }

  @Test
  void anOwnerThatCantBeAskedIsRetriedThenBlamed() throws Exception {
    PeerAddress dead = new PeerAddress("127.0.0.1", 1);
    try (BlockFetcher f =
        fetcherWhoseLocatesFail(
            o ->
                new io.rdmashuffle.transport.PeerUnreachableException("no route", o, null, null))) {
      f.add(new BlockSource(new Owner(dead, false, false), "1", "50", WANTED, "map 50"));
      BlockFetchException e = assertThrows(BlockFetchException.class, () -> readAll(f));
      assertEquals(BlockFetchException.Kind.TRANSPORT, e.kind());
      assertTrue(e.kind().blamesMapOutput());
      assertTrue(e.getMessage().contains("after 3 attempts"), e.getMessage());
    }
    assertEquals(2L, counters.snapshot().get("retries"));
  }

  @Test
  void aCallConnectionThisProcessCantSetUpFailsTheTaskNotTheOwner() throws Exception {
    try (BlockFetcher f =
        fetcherWhoseLocatesFail(
            o ->
                new LocalSideException(
                    "could not open a socket: Too many open files", o, null, null))) {
      f.add(source(50, false, false));
      assertTheTaskFailsForItsOwnSetup(f, "after 3 attempts");
    }
  }

  /** A fetcher whose every locate call fails with {@code failure} of its owner. */
  private BlockFetcher fetcherWhoseLocatesFail(
      java.util.function.Function<PeerAddress, Exception> failure) {
    return new BlockFetcher(
        APP,
        (o, app, r) -> CompletableFuture.failedFuture(failure.apply(o)),
        null,
        client.connections(),
        client.buffers(),
        options(false, 256 * 1024),
        counters,
        client.fetchDriver(),
        () -> {});
  }

  @Test
  void aReadConnectionThisProcessCantSetUpFailsTheTaskNotTheOwner() throws Exception {
    commit(51);
    FakeReadTransport noSetup = new FakeReadTransport();
    noSetup.connectFailure =
        new LocalSideException(
            "could not make a queue pair: Invalid argument",
            server.transport().localAddress(),
            null,
            null);
    try (io.rdmashuffle.transport.ConnectionPool pool =
            new io.rdmashuffle.transport.ConnectionPool(noSetup, 1);
        BlockFetcher f =
            new BlockFetcher(
                APP,
                this::locate,
                null,
                pool,
                client.buffers(),
                options(false, 256 * 1024),
                counters,
                client.fetchDriver(),
                () -> {})) {
      f.add(source(51, false, false));
      assertTheTaskFailsForItsOwnSetup(f, "queue pair");
    }
  }

  /** {@code f}'s blocks fail as this process's own setup failure, never the owner's, counted. */
  private void assertTheTaskFailsForItsOwnSetup(BlockFetcher f, String says) {
    BlockFetchException e = assertThrows(BlockFetchException.class, () -> readAll(f));
    assertEquals(BlockFetchException.Kind.OWN_SIDE, e.kind(), e.getMessage());
    assertFalse(e.kind().blamesMapOutput(), "the owner is not blamed for this side's setup");
    assertTrue(e.getMessage().contains(says), e.getMessage());
    assertEquals(1L, counters.snapshot().get("fetchFailures.ownSide"));
    assertEquals(0L, counters.snapshot().get("fetchFailures.transport"));
  }

  @Test
  void noReadBufferForTheTaskIsItsOwnShortageNotTheOwnersFault() throws Exception {
    commit(80);
    io.rdmashuffle.memory.BufferPool tiny =
        new io.rdmashuffle.memory.BufferPool(
            client.transport().registrar(), 4096, 64 * 1024, 64 * 1024, true);
    io.rdmashuffle.memory.PooledBuffer hog = tiny.tryAllocate(64 * 1024);
    try (BlockFetcher f =
        new BlockFetcher(
            APP,
            this::locate,
            null,
            client.connections(),
            tiny,
            new FetchOptions(256 * 1024, 8, SEGMENT, false, true, 200, 2, 20),
            counters,
            client.fetchDriver(),
            () -> {})) {
      f.add(source(80, false, false));
      BlockFetchException e = assertThrows(BlockFetchException.class, () -> readAll(f));
      assertEquals(BlockFetchException.Kind.SHORTAGE, e.kind(), e.getMessage());
      assertFalse(e.kind().blamesMapOutput());
    } finally {
      hog.release();
      tiny.close();
    }
  }

  @Test
  void aBlockReleasedByTheTaskFailsItsStreamOnAnotherThreadInsteadOfReadingReusedMemory()
      throws Exception {
    commit(60);
    BlockFetcher f = fetcher(false, 256 * 1024);
    f.add(source(60, false, false));
    Block b = f.next();
    InputStream in = b.stream();
    in.read();
    f.close(); // the task ended: its completion listener closes the fetcher
    IOException e = assertThrows(IOException.class, () -> in.readAllBytes());
    assertTrue(e.getMessage().contains("released"), e.getMessage());
    long deadline =
        System.currentTimeMillis() + 5000; // READs in flight give theirs back as they end
    while (client.buffers().lentBytes() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(0, client.buffers().lentBytes());
  }

  /**
   * A reduce task's blocks consumed by a thread of its own after the task ended (the task's
   * completion listener closed the fetcher): whatever block that thread is in the middle of (one
   * READ whole, one streamed in segments, one read from its file on this host), its next read fails
   * with an {@code IOException} that blames no map output, after only the block's own bytes; every
   * buffer goes back.
   */
  @Test
  void aThreadStillReadingAfterTheTaskEndedFailsWithAnIOExceptionBlamingNobody() throws Exception {
    Path data = commit(90);
    // partition 2 is READ whole with its neighbours, 4 is larger than a segment (streamed)
    for (int partition : new int[] {2, 4}) {
      for (boolean local : new boolean[] {false, true}) {
        String what = (local ? "local" : "remote") + " partition " + partition;
        BlockFetcher f = fetcher(local, 256 * 1024);
        f.add(source(90, local, false));
        CountDownLatch midway = new CountDownLatch(1);
        CountDownLatch taskEnded = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread reader =
            new Thread(
                () -> {
                  try {
                    Block b;
                    while ((b = f.next()) != null) {
                      byte[] want = expected(data, b.partition());
                      InputStream in = b.stream();
                      if (b.partition() != partition) {
                        assertArrayEquals(want, in.readAllBytes(), what);
                        in.close();
                        continue;
                      }
                      int half = want.length / 2 + 1;
                      byte[] got = in.readNBytes(half);
                      assertArrayEquals(Arrays.copyOf(want, half), got, what);
                      midway.countDown();
                      taskEnded.await();
                      in.readNBytes(want.length - half); // must fail
                      fail(what + ": read after the task ended");
                    }
                    fail(what + ": the block never came");
                  } catch (Throwable t) {
                    thrown.set(t);
                  } finally {
                    midway.countDown();
                  }
                },
                "user-thread-of-the-task");
        reader.start();
        assertTrue(midway.await(10, TimeUnit.SECONDS), what);
        f.close(); // the task ended: its completion listener closes the fetcher
        taskEnded.countDown();
        reader.join(10_000);
        assertFalse(reader.isAlive(), what);
        Throwable t = thrown.get();
        assertTrue(t instanceof IOException, what + ": " + t);
        assertFalse(
            t instanceof BlockFetchException e && e.kind().blamesMapOutput(),
            what + ": a read after the task ended blamed the map output: " + t);
      }
    }
    long deadline = System.currentTimeMillis() + 5000;
    while (client.buffers().lentBytes() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(0, client.buffers().lentBytes());
    assertEquals(0, counters.snapshot().get("fetchFailures.local"), counters.snapshot().toString());
  }

  @Test
  void closingMidWayReleasesEveryBufferAndFile() throws Exception {
    commit(70);
    commit(71);
    BlockFetcher f = fetcher(true, 256 * 1024);
    f.add(source(70, false, false));
    f.add(source(71, true, false));
    f.next();
    f.next();
    f.close();
    long deadline = System.currentTimeMillis() + 5000;
    while (client.buffers().lentBytes() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(0, client.buffers().lentBytes());
    assertEquals(List.of(), client.buffers().leaks());
  }
}
