/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.bench.scale.ProcessFootprint;
import io.rdmashuffle.bench.scale.ReaderResults;
import io.rdmashuffle.bench.scale.ScaleManifest;
import io.rdmashuffle.cluster.spark.SparkApplication;
import io.rdmashuffle.mapoutput.OwnerMarker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Serving at the scale of a real job, in one serving process: a Spark executor (Spark on YARN, the
 * executor's own {@code SparkNode} serves), then the NodeManager's Spark service (the same
 * application with {@code spark.shuffle.service.enabled}: the service serves the executor's
 * outputs). Each holds {@value #PARTITIONS_TEXT} partitions in each of {@link #MAPS} map outputs
 * (20,000), written through the shuffle manager's own writer by a Spark application that then stays
 * up ({@code ScaleServeApp}). Reduce tasks on the four other hosts read every block, {@link #SLOTS}
 * at a time per host (200 at once), each task one partition of every map output with a block there,
 * through the engine-neutral reading core ({@code ScaleReader}: a block fetcher per task on one
 * node runtime per host, as an executor's reduce tasks read, with nothing of Spark; the harness
 * drives exactly that many at once and compares every byte with the map output's files). Must hold:
 * no task fails, every block is read and equal, and the serving process stays within its declared
 * bounds, read from {@code /proc} of that process while it serves: map output descriptors and
 * mappings at most {@code serve.maxOpenOutputs} (as it logged it at start, derived from its
 * limits), all descriptors within {@code RLIMIT_NOFILE}, all mappings within {@code
 * vm.max_map_count}, its resident size within its memory (the executor's container: heap and
 * overhead; the NodeManager: its heap and the off-heap its service declares) and never the bytes it
 * served (file-backed resident memory does not grow with them: tcp serves with sendfile and pread).
 * Full tier only: the two serving runs take tens of minutes on a 2-core machine.
 */
@Timeout(3600)
@EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServingAtScaleIT {
  static final int MAPS = 20_000;
  static final int PARTITIONS = 4_000;
  static final String PARTITIONS_TEXT = "4,000";
  static final int SLOTS = 50;
  static final int READING_HOSTS = 4;
  static final int BLOCKS_PER_MAP = 16;
  static final int RECORD_BYTES = 2048;
  static final int WRITER_TASKS = 4;
  static final String SERVICE = "io.rdmashuffle.hadoop.spark.SparkShuffleService";

  /** Each NodeManager's heap: as operators size one (Hadoop's default is a quarter of the host). */
  static final String NODE_MANAGER_HEAP = "1g";

  /** What a JVM holds beside its heap: metaspace, code, thread stacks, direct buffers. */
  static final long BESIDE_HEAP_BYTES = 256L << 20;

  /** The executor's container: spark.executor.memory and Spark's default overhead (384m). */
  static final long EXECUTOR_CONTAINER_BYTES = (1024L + 384) << 20;

  static Cluster cluster;

  @BeforeAll
  static void start() throws InterruptedException {
    ClusterTesting.assumeRoot();
    cluster =
        ClusterTesting.startWhenFree(
            ClusterSpec.builder("scale")
                .hosts(1 + READING_HOSTS)
                .yarn()
                // a NodeManager as operators size one (Hadoop's default heap is a quarter of the
                // host): at the harness's 192 MiB, serve.maxTableBytes holds ~430 outputs of 4,000
                // partitions, and 200 readers asking for 64 each waited past their 60 s for room
                .nodeManagerHeap(NODE_MANAGER_HEAP)
                .yarnSite("yarn.nodemanager.aux-services", "mapreduce_shuffle,spark_shuffle")
                .yarnSite("yarn.nodemanager.aux-services.spark_shuffle.class", SERVICE)
                .yarnSite("spark.shuffle.rdma.transport", "tcp")
                .yarnSite("spark.authenticate", "true")
                .build());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void anExecutorServesEveryBlockToItsReadersWithinItsBounds() throws Exception {
    Served s = serveAndRead("scale-executor", false);
    // the executor's container: heap and overhead, what YARN's memory check would charge
    assertTrue(
        s.peak().rssBytes() <= EXECUTOR_CONTAINER_BYTES,
        "the executor's resident size " + s.peak() + " passed its container's memory");
  }

  @Test
  @Order(2)
  void theNodeManagersServiceServesEveryBlockToItsReadersWithinItsBounds() throws Exception {
    Served s = serveAndRead("scale-nodemanager", true);
    // its heap may grow to -Xmx (the partition tables are a quarter of it); what serving adds
    // beside the heap is bounded, and no served byte comes through a mapping (tcp: pread and
    // sendfile), so the file-backed part stays
    long heap = io.rdmashuffle.tools.Cli.bytes(NODE_MANAGER_HEAP);
    assertTrue(
        s.peak().rssBytes() <= heap + BESIDE_HEAP_BYTES,
        "the NodeManager's resident size passed its heap ("
            + NODE_MANAGER_HEAP
            + ") and 256 MiB beside it: "
            + s.before()
            + " -> "
            + s.peak());
    assertTrue(
        s.peak().rssFileBytes() - s.before().rssFileBytes() <= 64L << 20,
        "the NodeManager's file-backed resident size grew by more than 64 MiB: "
            + s.before()
            + " -> "
            + s.peak());
  }

  /** What one serving run measured. */
  record Served(ProcessFootprint before, ProcessFootprint peak, Map<String, Long> serving) {}

  private Served serveAndRead(String name, boolean nodeService) throws Exception {
    Path out = cluster.shared().resolve(name);
    SparkApplication app =
        ClusterTesting.withExecutorMetrics(
                cluster.yarn().sparkApplication(name, "io.rdmashuffle.cluster.apps.ScaleServeApp"),
                out.resolve("metrics"))
            .withRdmaShuffle()
            .conf("spark.shuffle.rdma.transport", "tcp")
            .conf("spark.authenticate", "true")
            .conf("spark.shuffle.service.enabled", Boolean.toString(nodeService))
            .conf("spark.executor.instances", "1")
            .conf("spark.executor.cores", "2")
            .conf("spark.executor.memory", "1g")
            .conf("spark.ui.enabled", "false")
            .args(
                out.toString(),
                Integer.toString(MAPS),
                Integer.toString(PARTITIONS),
                Integer.toString(BLOCKS_PER_MAP),
                Integer.toString(RECORD_BYTES),
                Integer.toString(WRITER_TASKS));
    long t0 = System.nanoTime();
    CompletableFuture<SparkApplication.Outcome> run =
        CompletableFuture.supplyAsync(() -> app.run(3000));
    try {
      Probes.await(
          name + "'s map outputs",
          1800,
          () -> Files.exists(out.resolve("ready")) || run.isDone(),
          List.of());
      assertFalse(
          run.isDone(), () -> name + " ended before its outputs were read: " + run.join().tail());
      double written = (System.nanoTime() - t0) / 1e9;
      ScaleManifest m = ScaleManifest.read(out.resolve("manifest.txt"));
      assertEquals(MAPS, m.outputs().size(), "map outputs in the manifest");
      assertEquals(PARTITIONS, m.partitions());
      assertEquals(1, m.owners().size(), "written by one executor: " + m.owners());
      OwnerMarker owner = OwnerMarker.parse(m.outputs().get(0).marker());
      assertTrue(
          m.outputs().stream().allMatch(o -> o.marker().equals(m.outputs().get(0).marker())),
          "one owner serves every output");
      Host serving = hostOf(owner.address().host());
      long pid = nodeService ? nodeManagerPid(serving) : executorPid(serving, m.application());
      String servingLog =
          nodeService ? nodeManagerLog(serving) : executorLog(serving, m.application());
      int maxOpen = declaredMaxOpenOutputs(servingLog);
      long nofile = ProcessFootprint.openFileLimit(pid);
      long maxMaps = ProcessFootprint.maxMapCount();
      List<Host> readers =
          cluster.hosts().stream().filter(h -> h != serving).limit(READING_HOSTS).toList();
      assertEquals(READING_HOSTS, readers.size());

      ProcessFootprint[] before = new ProcessFootprint[1];
      ProcessFootprint.Sampler[] sampler = new ProcessFootprint.Sampler[1];
      long r0 = System.nanoTime();
      List<ReaderResults> results;
      try {
        results =
            ScaleReaders.run(
                cluster,
                readers,
                out.resolve("manifest.txt"),
                out.resolve("readers"),
                new ScaleReaders.Options(SLOTS, 1, "1m", List.of(serving.dir("")), 2400),
                () -> {
                  before[0] = ProcessFootprint.of(pid);
                  sampler[0] = new ProcessFootprint.Sampler(pid, 500);
                });
      } finally {
        if (sampler[0] != null) {
          sampler[0].close();
        }
      }
      double readSeconds = (System.nanoTime() - r0) / 1e9;
      ProcessFootprint peak = sampler[0].peak();
      ProcessFootprint after = ProcessFootprint.of(pid);
      Files.writeString(out.resolve("resume"), "");
      SparkApplication.Outcome o = run.get(600, TimeUnit.SECONDS);
      assertTrue(o.ok(), name + " failed: " + o.tail());
      assertEquals("0", readyValue(out, "failedTasks"), "tasks of the writing stage failed");

      ReaderResults all = ReaderResults.sum(results);
      Map<String, Long> serve =
          nodeService ? nodeManagerServed(serving, m.application()) : executorServed(out);
      double cpuSeconds = after.cpuSeconds() - before[0].cpuSeconds();
      System.out.printf(
          Locale.ROOT,
          "%s: %d map outputs x %d partitions (%d blocks, %.0f MiB) written in %.0f s; %s read"
              + " them from %d hosts, %d tasks, at most %d at once, in %.1f s (%.0f blocks/s);"
              + " serving process %d (RLIMIT_NOFILE %d, vm.max_map_count %d, serve.maxOpenOutputs"
              + " %d): before %s, peak %s, after %s, %d samples; CPU %.1f s; serving %s;"
              + " readers %s%n",
          name,
          m.outputs().size(),
          PARTITIONS,
          m.blocks(),
          all.bytes() / 1048576.0,
          written,
          nodeService ? "the NodeManager's service served," : "the executor served,",
          readers.size(),
          all.tasks(),
          all.maxRunning(),
          readSeconds,
          all.blocks() / all.seconds(),
          pid,
          nofile,
          maxMaps,
          maxOpen,
          before[0],
          peak,
          after,
          sampler[0].samples(),
          cpuSeconds,
          serve,
          all.counters());

      assertEquals(List.of(), all.failures(), "reader failures");
      assertEquals(0, all.failedTasks(), "failed reduce tasks");
      assertEquals(0, all.mismatches(), "blocks that differ from their files");
      assertEquals(m.blocks(), all.expectedBlocks(), "blocks the readers planned");
      assertEquals(m.blocks(), all.blocks(), "blocks read");
      for (Map.Entry<String, Long> c : all.counters().entrySet()) {
        if (c.getKey().startsWith("fetchFailures.")) {
          assertEquals(0L, c.getValue(), c.getKey());
        }
      }
      assertEquals(m.blocks(), all.counter("blocksRemote"), "every block through the transport");
      assertTrue(
          all.maxRunning() >= READING_HOSTS * SLOTS,
          "reduce tasks at once: " + all.maxRunning() + " of " + READING_HOSTS * SLOTS);

      assertTrue(
          peak.outputFds() > 0 && cpuSeconds > 0,
          "the process watched (" + pid + ") is not the one that served: " + peak);
      assertTrue(
          peak.outputFds() <= maxOpen,
          "map output descriptors " + peak.outputFds() + " > serve.maxOpenOutputs " + maxOpen);
      assertTrue(
          peak.outputMappings() <= maxOpen,
          "map output mappings " + peak.outputMappings() + " > serve.maxOpenOutputs " + maxOpen);
      assertTrue(peak.fds() < nofile, "descriptors " + peak.fds() + " reached RLIMIT_NOFILE");
      assertTrue(peak.mappings() < maxMaps, "mappings " + peak.mappings() + " reached the limit");
      assertTrue(
          peak.rssFileBytes() - before[0].rssFileBytes() <= 32L << 20,
          "file-backed resident memory grew with the bytes served ("
              + (all.bytes() >> 20)
              + " MiB): "
              + before[0]
              + " -> "
              + peak);
      assertEquals(0L, serve.getOrDefault("serve.failed", 0L), "answers blaming a map output");
      return new Served(before[0], peak, serve);
    } finally {
      Files.writeString(out.resolve("resume"), "");
    }
  }

  private static String readyValue(Path out, String key) throws IOException {
    for (String l : Files.readAllLines(out.resolve("ready"))) {
      if (l.startsWith(key + "=")) {
        return l.substring(key.length() + 1);
      }
    }
    return null;
  }

  private static Host hostOf(String address) {
    return cluster.hosts().stream()
        .filter(h -> h.address().equals(address) || h.name().equals(address))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no host " + address));
  }

  private static long nodeManagerPid(Host h) {
    return cluster.yarn().nodeManager(h.index()).pid();
  }

  private static String nodeManagerLog(Host h) throws IOException {
    return Files.readString(cluster.yarn().nodeManager(h.index()).spec().log());
  }

  /** The executor of {@code application} running on {@code h}. */
  private static long executorPid(Host h, String application) throws IOException {
    for (long pid : h.pids()) {
      try {
        String cmd = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
        // the JVM itself, not the container's launch shell, whose command line names it too
        String program = cmd.substring(0, Math.max(0, cmd.indexOf('\0')));
        if (program.endsWith("/java")
            && cmd.contains("YarnCoarseGrainedExecutorBackend")
            && cmd.contains(application)) {
          return pid;
        }
      } catch (IOException e) {
        // ended meanwhile
      }
    }
    throw new AssertionError("no executor of " + application + " runs on " + h);
  }

  /** The executor's log (its container's stderr). */
  private static String executorLog(Host h, String application) throws IOException {
    Path logs = h.dir("nm-logs").resolve(application);
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(logs)) {
      for (Path f : files.filter(f -> f.getFileName().toString().equals("stderr")).toList()) {
        all.append(Files.readString(f));
      }
    }
    return all.toString();
  }

  private static final Pattern MAX_OPEN = Pattern.compile("serve\\.maxOpenOutputs=(\\d+)");

  /** serve.maxOpenOutputs as the serving process derived it at start (its log). */
  private static int declaredMaxOpenOutputs(String log) {
    Matcher mt = MAX_OPEN.matcher(log);
    int v = -1;
    while (mt.find()) {
      v = Integer.parseInt(mt.group(1));
    }
    assertTrue(v > 0, "the serving process logged no serve.maxOpenOutputs");
    return v;
  }

  /** The executor's serving counters, its last metrics report. */
  private static Map<String, Long> executorServed(Path out) throws IOException {
    Map<String, Map<String, Long>> m = ClusterTesting.executorMetrics(out.resolve("metrics"));
    Map<String, Long> serve = new LinkedHashMap<>();
    for (Map<String, Long> e : m.values()) {
      e.forEach(
          (k, v) -> {
            if (k.startsWith("serve.")) {
              serve.merge(k, v, Long::sum);
            }
          });
    }
    return serve;
  }

  private static final Pattern SERVED =
      Pattern.compile(
          "rdma-shuffle Spark service: application (\\S+) ended; served so far: \\{([^}]*)\\}");

  /** The NodeManager service's serving counters when the application ended (its log). */
  private static Map<String, Long> nodeManagerServed(Host h, String application) throws Exception {
    Map<String, Long> serve = new LinkedHashMap<>();
    Probes.await(
        "the end of " + application + " at " + h.name() + "'s NodeManager",
        120,
        () -> {
          try {
            Matcher mt = SERVED.matcher(nodeManagerLog(h));
            while (mt.find()) {
              if (mt.group(1).equals(application)) {
                for (String kv : mt.group(2).split(", ")) {
                  String[] f = kv.split("=");
                  serve.put(f[0], Long.parseLong(f[1]));
                }
              }
            }
          } catch (IOException e) {
            return false;
          }
          return !serve.isEmpty();
        },
        List.of());
    return new LinkedHashMap<>(serve);
  }
}
