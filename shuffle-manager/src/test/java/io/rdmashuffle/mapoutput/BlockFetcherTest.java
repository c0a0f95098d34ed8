package io.rdmashuffle.mapoutput;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.KeyStyle;
import io.rdmashuffle.config.RdmaConf;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The reduce-side core against real tcp transports, without any engine. */
@Timeout(60)
class BlockFetcherTest {
  private static final String APP = "app-blocks";
  private static final byte[] SECRET = "block-fetcher-secret-0123".getBytes(StandardCharsets.UTF_8);
  private static final int SEGMENT = 64 * 1024;
  @TempDir Path dir;
  private ShuffleRuntime server;
  private ShuffleRuntime client;

  @BeforeEach
  void start() throws Exception {
    RdmaConf conf = RdmaConf.of(KeyStyle.SPARK, Map.of(
        "spark.shuffle.rdma.transport", "tcp",
        "spark.shuffle.rdma.read.timeout", "5s",
        "spark.shuffle.rdma.memory.pieceSize", "64k",
        "spark.shuffle.rdma.buffers.chunkSize", "1m",
        "spark.shuffle.rdma.buffers.maxBytes", "64m"));
    server = ShuffleRuntime.start(conf, APP, SECRET, "127.0.0.1");
    client = ShuffleRuntime.start(conf, APP, SECRET, "127.0.0.1");
  }

  @AfterEach
  void stop() {
    assertEquals(List.of(), client.buffers().leaks());
    assertEquals(List.of(), server.buffers().leaks());
    client.close();
    server.close();
  }

  /** A committed map output: partition p holds lengths[p] bytes of a pattern. */
  private Path mapOutput(String name, long[] lengths, long seed) throws IOException {
    Path p = dir.resolve(name);
    Random r = new Random(seed);
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      for (long len : lengths) {
        byte[] b = new byte[(int) len];
        r.nextBytes(b);
        ch.write(ByteBuffer.wrap(b));
      }
    }
    return p;
  }

  private static byte[] expected(Path data, long[] lengths, int partition) throws IOException {
    byte[] all = Files.readAllBytes(data);
    long start = 0;
    for (int p = 0; p < partition; p++) {
      start += lengths[p];
    }
    byte[] out = new byte[(int) lengths[partition]];
    System.arraycopy(all, (int) start, out, 0, out.length);
    return out;
  }

  private static BlockFetcher.Options options(boolean readLocal) {
    return new BlockFetcher.Options(256 * 1024, 8, SEGMENT, readLocal, true, 5000);
  }

  /** Reads every block; partition to bytes. */
  private static Map<Integer, byte[]> readAll(BlockFetcher f) throws Exception {
    Map<Integer, byte[]> out = new HashMap<>();
    BlockFetcher.Block b;
    while ((b = f.next()) != null) {
      try (InputStream in = b.stream()) {
        byte[] bytes = in.readAllBytes();
        assertEquals(b.size(), bytes.length);
        assertNull(out.put(b.partition(), bytes), "partition " + b.partition() + " twice");
      }
    }
    return out;
  }

  private void assertBlocks(ShuffleRuntime reader, boolean readLocal, Path data, long[] lengths,
      int[] partitions, MapOutputDescriptor d) throws Exception {
    try (BlockFetcher f = reader.newFetcher(options(readLocal), () -> {})) {
      f.add(new BlockFetcher.Source(d, partitions, "map"));
      Map<Integer, byte[]> got = readAll(f);
      assertEquals(partitions.length, got.size());
      for (int p : partitions) {
        assertArrayEquals(expected(data, lengths, p), got.get(p), "partition " + p);
      }
    }
  }

  // small, empty, consecutive small (one READ), bigger than a segment and than a piece
  private static final long[] LENGTHS = {100, 0, 5000, 7000, 300_000, 1, 65_536, 0, 12_345};
  private static final int[] WANTED = {0, 2, 3, 4, 5, 6, 8};

  @Test
  void remoteBlocksArriveExactlyWithinTheBounds() throws Exception {
    Path data = mapOutput("shuffle_1_10_0.data", LENGTHS, 1);
    MapOutputDescriptor d = server.registry().publish(1, 10, data, LENGTHS, null).descriptor();
    assertEquals(ChecksumAlgorithm.CRC32C, d.checksum());
    assertBlocks(client, false, data, LENGTHS, WANTED, d);
    assertTrue(client.metrics().readsCompleted() > 0);
    assertEquals(0, client.buffers().lentBytes());
    assertEquals(WANTED.length, client.counters().snapshot().get("blocksRemote"));
  }

  @Test
  void blocksOfThisProcessAndThisHostAreReadWithoutTheTransport() throws Exception {
    Path data = mapOutput("shuffle_1_11_0.data", LENGTHS, 2);
    MapOutputDescriptor d = server.registry().publish(1, 11, data, LENGTHS, null).descriptor();
    assertBlocks(server, true, data, LENGTHS, WANTED, d); // its own output: the mapping
    assertBlocks(client, true, data, LENGTHS, WANTED, d); // same host: the files
    assertEquals(0, client.metrics().readsCompleted());
    assertEquals(0, server.metrics().readsCompleted());
    assertEquals(0, server.metrics().readsServed());
  }

  @Test
  void partitionRangesAndSinglePartitionsReadTheRightEntries() throws Exception {
    long[] lengths = new long[3000];
    for (int p = 0; p < lengths.length; p++) {
      lengths[p] = p % 7 == 0 ? 0 : 1 + p % 13;
    }
    Path data = mapOutput("shuffle_2_1_0.data", lengths, 3);
    MapOutputDescriptor d = server.registry().publish(2, 1, data, lengths, null).descriptor();
    assertBlocks(client, false, data, lengths, new int[] {2999}, d);
    assertBlocks(client, false, data, lengths, new int[] {1, 2, 3, 4, 5, 6}, d);
    assertBlocks(client, false, data, lengths, new int[] {1500, 2000, 2500}, d);
  }

  @Test
  void aCorruptedByteIsAChecksumFailureNeverWrongData() throws Exception {
    Path data = mapOutput("shuffle_3_1_0.data", LENGTHS, 4);
    MapOutputDescriptor d = server.registry().publish(3, 1, data, LENGTHS, null).descriptor();
    // corrupt one byte of partition 2 (small) and one of partition 4 (streamed)
    flip(data, 100 + 10);
    flip(data, 100 + 5000 + 7000 + 250_000);
    for (boolean local : new boolean[] {false, true}) {
      BlockFetchException e = assertThrows(BlockFetchException.class,
          () -> readAllOf(local ? server : client, local, d, new int[] {2}));
      assertEquals(BlockFetchException.Kind.CHECKSUM, e.kind());
      assertEquals(2, e.partition());
      BlockFetchException big = assertThrows(BlockFetchException.class,
          () -> readAllOf(local ? server : client, local, d, new int[] {4}));
      assertEquals(BlockFetchException.Kind.CHECKSUM, big.kind());
      assertEquals(4, big.partition());
    }
    assertTrue(client.counters().checksumMismatches() >= 2);
  }

  private static void flip(Path data, long position) throws IOException {
    try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, position);
      b.put(0, (byte) (b.get(0) ^ 0x5a)).rewind();
      ch.write(b, position);
    }
  }

  private static void readAllOf(ShuffleRuntime r, boolean local, MapOutputDescriptor d,
      int[] partitions) throws Exception {
    try (BlockFetcher f = r.newFetcher(options(local), () -> {})) {
      f.add(new BlockFetcher.Source(d, partitions, "map"));
      readAll(f);
    }
  }

  @Test
  void aWithdrawnMapOutputIsNeverReadThroughItsOldDescriptor() throws Exception {
    Path data = mapOutput("shuffle_4_1_0.data", LENGTHS, 5);
    MapOutputDescriptor old = server.registry().publish(4, 1, data, LENGTHS, null).descriptor();
    server.registry().removeShuffle(4);
    Path other = mapOutput("shuffle_5_2_0.data", LENGTHS, 6);
    MapOutputDescriptor now = server.registry().publish(5, 2, other, LENGTHS, null).descriptor();
    // the old registration is gone: its rkeys are refused
    BlockFetchException gone = assertThrows(BlockFetchException.class,
        () -> readAllOf(client, false, old, new int[] {0, 2}));
    assertEquals(BlockFetchException.Kind.TRANSPORT, gone.kind());
    // even if another output's regions sat exactly where the old descriptor points (rkey and
    // address reused, as a NIC may), the entries' tags don't match the old nonce
    MapOutputDescriptor forged = new MapOutputDescriptor(old.shuffleId(), old.mapId(),
        old.nonce(), old.partitions(), old.checksum(), now.owner(), now.meta(), now.data(), "");
    BlockFetchException invalid = assertThrows(BlockFetchException.class,
        () -> readAllOf(client, false, forged, new int[] {0, 2}));
    assertEquals(BlockFetchException.Kind.INVALID, invalid.kind());
  }

  @Test
  void anUnreachableOwnerIsATransportFailure() throws Exception {
    Path data = mapOutput("shuffle_6_1_0.data", LENGTHS, 7);
    MapOutputDescriptor d = server.registry().publish(6, 1, data, LENGTHS, null).descriptor();
    server.close();
    BlockFetchException e = assertThrows(BlockFetchException.class,
        () -> readAllOf(client, false, d, new int[] {0}));
    assertEquals(BlockFetchException.Kind.TRANSPORT, e.kind());
    assertEquals(d, e.source().descriptor());
  }

  @Test
  void closingEarlyReleasesEverythingAndWithdrawingUnmaps() throws Exception {
    Path data = mapOutput("shuffle_7_1_0.data", LENGTHS, 8);
    MapOutputDescriptor d = server.registry().publish(7, 1, data, LENGTHS, null).descriptor();
    assertTrue(mappings(data) > 0);
    try (BlockFetcher f = client.newFetcher(options(false), () -> {})) {
      f.add(new BlockFetcher.Source(d, WANTED, "map"));
      BlockFetcher.Block b = f.next();
      assertNotNull(b);
      b.stream().read(); // and never closed: the fetcher's close releases it
    }
    // READs still in flight at close release their buffers as they end
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (client.buffers().lentBytes() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(0, client.buffers().lentBytes());
    server.registry().removeShuffle(7);
    assertEquals(0, server.registry().published());
    assertEquals(0, mappings(data), "mappings of " + data + " left");
    assertFalse(Files.exists(MapOutputRegistry.metaPathFor(data)));
  }

  @Test
  void emptyMapOutputsRegisterNothing() throws Exception {
    long before = server.metrics().memory().registeredBytes();
    PublishedMapOutput out = server.registry().publish(8, 1, dir.resolve("absent.data"),
        new long[] {0, 0, 0}, null);
    assertTrue(out.descriptor().isEmpty());
    assertEquals(before, server.metrics().memory().registeredBytes());
  }

  private static long mappings(Path file) throws IOException {
    return Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .filter(l -> l.endsWith(file.toString()))
        .count();
  }
}
