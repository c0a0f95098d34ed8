/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import java.time.Duration;
import java.util.List;

/**
 * The core's settings, declared once: those of the transport, the buffers, the serving side and the
 * connection server, read by every engine. An engine adapter declares its own few settings beside
 * its {@link ConfigSchema}. Engines read them through {@link RdmaConf}; the operator templates in
 * {@code conf/} and {@code docs/configuration.md} are generated from the schemas (module {@code
 * conf}), and a test fails when they drift.
 */
public final class RdmaShuffleConfig {
  private RdmaShuffleConfig() {}

  private static final long KIB = 1024L;
  private static final long MIB = 1024L * KIB;
  private static final long GIB = 1024L * MIB;

  public static final ConfigEntry<TransportKind> TRANSPORT =
      ConfigEntry.builder("transport", ConfigType.oneOf(TransportKind.class))
          .defaultValue(TransportKind.AUTO)
          .doc(
              "Which one-sided transport runs: auto probes once and picks verbs where the native"
                  + " library loads, an RDMA device has an active port and the memlock limit"
                  + " allows the buffer pool, otherwise tcp (the cause is logged and counted);"
                  + " verbs or tcp forces one.")
          .build();

  public static final ConfigEntry<String> HOST =
      ConfigEntry.builder("host", ConfigType.STRING)
          .defaultValue("")
          .doc(
              "Address the process's connection server (tcp READs, calls, verbs connection setup)"
                  + " binds to and advertises. Empty: the engine's own host (Spark's executor host,"
                  + " the NodeManager's host).")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> PORT =
      ConfigEntry.builder("port", ConfigType.INT)
          .defaultValue(0)
          .range(0, 65535)
          .doc(
              "TCP port of the process's connection server (tcp READs, calls, verbs connection"
                  + " setup); 0 picks a free port.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> CONNECT_TIMEOUT =
      ConfigEntry.builder("connect.timeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(10))
          .range(Duration.ofMillis(10), Duration.ofMinutes(10))
          .doc(
              "Longest time to reach a peer and complete the authenticated handshake; beyond it"
                  + " the connect fails as unreachable.")
          .build();

  public static final ConfigEntry<Duration> READ_TIMEOUT =
      ConfigEntry.builder("read.timeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(30))
          .range(Duration.ofMillis(10), Duration.ofHours(1))
          .doc(
              "Longest time a posted READ may stay incomplete. A READ that exceeds it fails with a"
                  + " timeout and its connection is closed, failing what else was in flight on it.")
          .side(ConfigEntry.Side.FETCHING)
          .build();

  public static final ConfigEntry<Integer> CONNECTIONS_PER_PEER =
      ConfigEntry.builder("connectionsPerPeer", ConfigType.INT)
          .defaultValue(1)
          .range(1, 64)
          .unit("connections")
          .doc("Connections kept to each peer; READs are spread over them.")
          .side(ConfigEntry.Side.FETCHING)
          .build();

  public static final ConfigEntry<Integer> MAX_OUTSTANDING_READS =
      ConfigEntry.builder("read.maxOutstandingRequests", ConfigType.INT)
          .defaultValue(1024)
          .range(1, 65536)
          .unit("requests")
          .doc(
              "READs in flight per connection; posting more is refused (back-pressure) until some"
                  + " complete. The verbs transport also caps this at what the device allows.")
          .side(ConfigEntry.Side.FETCHING)
          .build();

  public static final ConfigEntry<Long> MAX_OUTSTANDING_BYTES =
      ConfigEntry.builder("read.maxOutstandingBytes", ConfigType.BYTES)
          .defaultValue(64 * MIB)
          .range(64 * KIB, 2 * GIB)
          .doc(
              "Bytes of READs in flight per connection; posting more is refused (back-pressure)"
                  + " until some complete. A single READ larger than this is still accepted when"
                  + " nothing else is in flight.")
          .side(ConfigEntry.Side.FETCHING)
          .build();

  public static final ConfigEntry<Long> BUFFERS_MAX_BYTES =
      ConfigEntry.builder("buffers.maxBytes", ConfigType.BYTES)
          .defaultValue(512 * MIB)
          .range(MIB, 4096 * GIB)
          .doc(
              "Upper bound on registered memory held by the READ buffer pool of one process. A"
                  + " request beyond it waits for buffers to be released (back-pressure). With"
                  + " verbs this memory is pinned: RLIMIT_MEMLOCK must allow it.")
          .side(ConfigEntry.Side.FETCHING)
          .build();

  public static final ConfigEntry<Long> BUFFERS_CHUNK_SIZE =
      ConfigEntry.builder("buffers.chunkSize", ConfigType.BYTES)
          .defaultValue(16 * MIB)
          .range(64 * KIB, GIB)
          .rule(RdmaShuffleConfig::isPowerOfTwo, "a power of two")
          .doc(
              "The pool registers memory in chunks of this size and carves buffers out of them;"
                  + " a buffer larger than a chunk is registered on its own.")
          .side(ConfigEntry.Side.FETCHING)
          .build();

  public static final ConfigEntry<Long> BUFFERS_MIN_SIZE =
      ConfigEntry.builder("buffers.minSize", ConfigType.BYTES)
          .defaultValue(4 * KIB)
          .range(512L, 64 * KIB)
          .rule(RdmaShuffleConfig::isPowerOfTwo, "a power of two")
          .doc("Smallest size class of the buffer pool; smaller requests get a buffer this big.")
          .side(ConfigEntry.Side.FETCHING)
          .build();

  public static final ConfigEntry<Long> PIECE_SIZE =
      ConfigEntry.builder("memory.pieceSize", ConfigType.BYTES)
          .defaultValue(GIB)
          .range(64 * KIB, GIB)
          .rule(v -> v % (64 * KIB) == 0, "a multiple of 64k")
          .doc(
              "Mapped files are registered in pieces of at most this size, so files of any size"
                  + " can be served (one registration is limited to 2 GiB).")
          .side(ConfigEntry.Side.SERVING)
          .build();

  // ---- the serving side (Spark executors, NodeManager services) ----

  public static final ConfigEntry<Integer> SERVE_MAX_OPEN_OUTPUTS =
      ConfigEntry.builder("serve.maxOpenOutputs", ConfigType.INT)
          .defaultValue(512)
          .range(1, 1 << 20)
          .unit("map outputs")
          .doc(
              "Map outputs a serving process keeps registered at once; each holds an open file and"
                  + " its mappings. Unless set, derived at start from the process's limits (half"
                  + " its open-file limit, a quarter of vm.max_map_count, and this default when"
                  + " neither can be read) and logged. Outputs are registered when committed"
                  + " (while there is room) or when first asked for, and leased to the reader that"
                  + " asked until it is done; beyond the bound the least recently asked-for"
                  + " unleased ones are deregistered, and when every one is leased new readers"
                  + " wait in turn (serve.locateWait).")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVE_MAX_OPEN_OUTPUTS_PER_APPLICATION =
      ConfigEntry.builder("serve.maxOpenOutputsPerApplication", ConfigType.INT)
          .defaultValue(0)
          .range(0, 1 << 20)
          .unit("map outputs")
          .doc(
              "On a server that serves more than one application (a NodeManager), the map"
                  + " outputs one application may keep registered while others have some too;"
                  + " 0 means three quarters of serve.maxOpenOutputs. When room is needed, the"
                  + " application holding the most loses its least recently asked-for unleased"
                  + " output first.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Long> SERVE_MAX_PINNED_BYTES =
      ConfigEntry.builder("serve.maxPinnedBytes", ConfigType.BYTES)
          .defaultValue(4 * GIB)
          .range(64 * MIB, 4096 * GIB)
          .doc(
              "Bytes of map outputs a serving process keeps registered and pinned in RAM (verbs"
                  + " without on-demand paging; tcp pins nothing): RLIMIT_MEMLOCK must allow it."
                  + " Unless set, derived at start: a quarter of the machine's memory, within the"
                  + " memlock limit less the READ buffers of the same process (this default when"
                  + " neither can be read), and logged. Beyond it the least recently asked-for"
                  + " unleased outputs are deregistered and registered again when asked for;"
                  + " nothing falls back to the stock shuffle for it.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Long> SERVE_MAX_TABLE_BYTES =
      ConfigEntry.builder("serve.maxTableBytes", ConfigType.BYTES)
          .defaultValue(256 * MIB)
          .range(1 * MIB, 1024 * GIB)
          .doc(
              "Heap a serving process gives the partition tables of the map outputs it keeps"
                  + " registered (12 bytes per partition for Spark's outputs, 20 for MapReduce's,"
                  + " which carry decoded lengths: 48 KB and 80 KB for an output of 4,000"
                  + " partitions). Unless set, derived at start: a quarter of the JVM's heap (-Xmx;"
                  + " this default when it can't be read), and logged. Beyond it the least recently"
                  + " asked-for unleased outputs are deregistered, as for serve.maxOpenOutputs; an"
                  + " output whose table alone is larger is answered unavailable.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> SERVE_LEASE_TIMEOUT =
      ConfigEntry.builder("serve.leaseTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(60))
          .range(Duration.ofSeconds(1), Duration.ofHours(1))
          .doc(
              "How long a located map output stays leased to the reader that asked for it unless"
                  + " the reader says it is done first (Spark readers do; MapReduce reducers and"
                  + " readers that died do not). A leased output is never deregistered to make"
                  + " room.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> SERVE_LOCATE_WAIT =
      ConfigEntry.builder("serve.locateWait", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(2))
          .range(Duration.ZERO, Duration.ofMinutes(5))
          .doc(
              "How long a locate waits, in turn, for room when every registered output is leased"
                  + " before it is answered \"busy, ask again\" (nobody's fault: the reader asks"
                  + " again later). Waiters go by age: from the first busy answer their reader had"
                  + " (the server remembers the readers it turned away). At most half the"
                  + " call.workers wait at once; beyond, a reader older than the youngest waiter"
                  + " takes its place, which is answered busy, and a younger one is answered busy at"
                  + " once.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<String> VERBS_NATIVE_LIBRARY =
      ConfigEntry.builder("verbs.nativeLibrary", ConfigType.STRING)
          .defaultValue("")
          .rule(v -> v.isEmpty() || v.startsWith("/"), "empty or an absolute path")
          .doc(
              "The native library DiSNI runs on (libdisni.so). Empty: a libdisni.so found on"
                  + " java.library.path, else the one bundled in the rdma-buffers jar (extracted"
                  + " to a private temporary folder). A path set here is used as it is and wins"
                  + " over both; when it can't be loaded, verbs is unavailable and the cause says"
                  + " why. A process loads the library once: the first value it sees counts.")
          .build();

  // ---- memory: reference counts and leak detection ----

  public static final ConfigEntry<Boolean> DEBUG_LEAK_DETECTION =
      ConfigEntry.builder("debug.leakDetection", ConfigType.BOOLEAN)
          .defaultValue(false)
          .doc(
              "Track every registered region, lent pooled buffer, registered file and buffer pool"
                  + " from creation to release, and log (with where it was created) and count any"
                  + " that is dropped without being released. Costs a stack trace per buffer lent:"
                  + " for finding a leak, not for production. The process keeps it on once a"
                  + " transport started with it.")
          .build();

  public static final ConfigEntry<Integer> VERBS_READ_WAIT_SPIN_MICROS =
      ConfigEntry.builder("verbs.read.waitSpinMicros", ConfigType.INT)
          .defaultValue(200)
          .range(0, 1_000_000)
          .unit("microseconds")
          .side(ConfigEntry.Side.FETCHING)
          .doc(
              "How long a reader about to block for its READs (a fetch task waiting for a block)"
                  + " polls the completion queue itself, delivering whatever completed (its own"
                  + " and others' READs), before it parks and leaves that to the transport's"
                  + " thread: a READ done within it costs no thread wake-up. The waiting thread"
                  + " spins that long at most; 0 never polls.")
          .build();

  // ---- verbs: registration and served queue pairs ----

  public static final ConfigEntry<VerbsRegistration> VERBS_REGISTRATION =
      ConfigEntry.builder("verbs.registration", ConfigType.oneOf(VerbsRegistration.class))
          .defaultValue(VerbsRegistration.AUTO)
          .side(ConfigEntry.Side.SERVING)
          .doc(
              "How verbs registers served memory (map output files): auto uses on-demand paging"
                  + " (IBV_ACCESS_ON_DEMAND: nothing pinned, pages faulted in when READ, prefetched"
                  + " when published, so serve.maxPinnedBytes does not bound what is served) where"
                  + " the device supports it for RC READ and its READs of on-demand memory return"
                  + " the bytes asked for (checked once per device at start, through the device's"
                  + " own loopback), else pins; pinned always pins (RLIMIT_MEMLOCK must allow"
                  + " serve.maxPinnedBytes); odp requires on-demand paging and the transport does"
                  + " not start without it or where its READs return wrong bytes (as on Soft-RoCE"
                  + " up to at least Linux 7.3 without a fix). The doctor and bin/rdma-shuffle"
                  + " qualify show which runs on each device and why.")
          .build();

  public static final ConfigEntry<Integer> VERBS_SERVED_QUEUE_PAIRS =
      ConfigEntry.builder("verbs.servedQueuePairs.max", ConfigType.INT)
          .defaultValue(4096)
          .range(1, 1 << 20)
          .unit("queue pairs")
          .side(ConfigEntry.Side.SERVING)
          .doc(
              "Queue pairs this process serves READs on, over all peers; a connect beyond it is"
                  + " refused (the reader sees it as unreachable).")
          .build();

  public static final ConfigEntry<Integer> VERBS_SERVED_QUEUE_PAIRS_PER_PEER =
      ConfigEntry.builder("verbs.servedQueuePairs.maxPerPeer", ConfigType.INT)
          .defaultValue(256)
          .range(1, 1 << 20)
          .unit("queue pairs")
          .side(ConfigEntry.Side.SERVING)
          .doc(
              "Queue pairs this process serves to one peer address; a connect beyond it is"
                  + " refused, so one peer can't take every queue pair of the device.")
          .build();

  public static final ConfigEntry<Duration> VERBS_SERVED_QUEUE_PAIRS_PROBE_INTERVAL =
      ConfigEntry.builder("verbs.servedQueuePairs.probeInterval", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(30))
          .range(Duration.ofMillis(100), Duration.ofHours(1))
          .side(ConfigEntry.Side.SERVING)
          .doc(
              "How often each served queue pair checks that its reader is still there: one"
                  + " zero-length RDMA WRITE (it writes no byte). A reader whose host vanished"
                  + " without disconnecting (power off, cable pulled, partition) does not answer;"
                  + " after the device's retries (8 to 16 s on Soft-RoCE) its queue pair is"
                  + " dropped and its place under verbs.servedQueuePairs.max and maxPerPeer"
                  + " freed: within this interval plus the retries, at most this interval plus"
                  + " max(this interval, connect.timeout). A queue pair's first probe goes out"
                  + " max(this interval, connect.timeout) after it was accepted.")
          .build();

  /** Every core setting: the above, then the connection server's ({@link ServerConfig}). */
  public static final List<ConfigEntry<?>> ALL =
      concat(
          List.of(
              TRANSPORT,
              HOST,
              PORT,
              CONNECT_TIMEOUT,
              READ_TIMEOUT,
              CONNECTIONS_PER_PEER,
              MAX_OUTSTANDING_READS,
              MAX_OUTSTANDING_BYTES,
              BUFFERS_MAX_BYTES,
              BUFFERS_CHUNK_SIZE,
              BUFFERS_MIN_SIZE,
              PIECE_SIZE,
              SERVE_MAX_OPEN_OUTPUTS,
              SERVE_MAX_OPEN_OUTPUTS_PER_APPLICATION,
              SERVE_MAX_PINNED_BYTES,
              SERVE_MAX_TABLE_BYTES,
              SERVE_LEASE_TIMEOUT,
              SERVE_LOCATE_WAIT,
              VERBS_NATIVE_LIBRARY,
              VERBS_READ_WAIT_SPIN_MICROS,
              DEBUG_LEAK_DETECTION,

              // verbs: registration and served queue pairs
              VERBS_REGISTRATION,
              VERBS_SERVED_QUEUE_PAIRS,
              VERBS_SERVED_QUEUE_PAIRS_PER_PEER,
              VERBS_SERVED_QUEUE_PAIRS_PROBE_INTERVAL),
          ServerConfig.ALL);

  private static List<ConfigEntry<?>> concat(List<ConfigEntry<?>> a, List<ConfigEntry<?>> b) {
    List<ConfigEntry<?>> all = new java.util.ArrayList<>(a);
    all.addAll(b);
    return List.copyOf(all);
  }

  private static boolean isPowerOfTwo(long v) {
    return v > 0 && (v & (v - 1)) == 0;
  }
}
