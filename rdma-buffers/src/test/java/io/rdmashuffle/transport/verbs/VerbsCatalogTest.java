package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.fetch.Block;
import io.rdmashuffle.fetch.BlockFetcher;
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
 * Served files are pinned (the default registration, on both guest kernels): the catalog
 * deregisters the least recently used outputs to stay within {@code serve.maxPinnedBytes} and
 * registers them again when asked for (counted). Were they registered on demand, nothing would be
 * pinned and the bound would never bite.
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
    return RdmaConf.of(
        TestSchema.SPARK_KEYS,
        Map.of(
            "spark.shuffle.rdma.transport", "verbs",
            "spark.shuffle.rdma.read.timeout", TIMEOUT_SECONDS + "s",
            "spark.shuffle.rdma.connect.timeout", 3 * TIMEOUT_SECONDS + "s",
            "spark.shuffle.rdma.buffers.maxBytes", "64m",
            "spark.shuffle.rdma.serve.maxPinnedBytes", "64m"));
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
                new BlockFetcher.Options(48 * MIB, 8, (int) (8 * MIB), false, true, 60_000, 2, 100),
                counters,
                () -> {})) {
          f.add(
              new BlockFetcher.Source(
                  new BlockFetcher.Owner(server.transport().localAddress(), false, false),
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
