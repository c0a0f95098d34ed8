package io.rdmashuffle.config;

import java.time.Duration;
import java.util.List;

/**
 * Every setting of rdma-shuffle, declared once. Engines read them through {@link RdmaConf}; the
 * operator templates in {@code conf/} and {@code docs/configuration.md} are generated from this
 * list by {@link ConfigDocs}, and a test fails when they drift.
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
              "Address the READ responder binds to and advertises. Empty: the engine's own host"
                  + " (Spark's executor host, the NodeManager's host).")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> PORT =
      ConfigEntry.builder("port", ConfigType.INT)
          .defaultValue(0)
          .range(0, 65535)
          .doc("TCP port of the READ responder (and of verbs connection setup); 0 picks a free port.")
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

  // Hadoop MapReduce only

  public static final ConfigEntry<Long> SERVICE_MAX_REGISTERED_BYTES =
      ConfigEntry.builder("service.maxRegisteredBytes", ConfigType.BYTES)
          .defaultValue(4 * GIB)
          .range(64 * MIB, 4096 * GIB)
          .scope(ConfigEntry.Scope.HADOOP)
          .side(ConfigEntry.Side.SERVING)
          .doc(
              "Upper bound on the map output bytes the NodeManager service keeps registered (mapped"
                  + " and, with verbs, pinned: RLIMIT_MEMLOCK must allow it). Outputs are registered"
                  + " on their first request; beyond the bound the least recently requested ones are"
                  + " deregistered, and a reducer still reading one asks again.")
          .build();

  public static final ConfigEntry<Long> FETCH_CHUNK_SIZE =
      ConfigEntry.builder("fetch.chunkSize", ConfigType.BYTES)
          .defaultValue(MIB)
          .range(64 * KIB, GIB)
          .scope(ConfigEntry.Scope.HADOOP)
          .side(ConfigEntry.Side.FETCHING)
          .doc(
              "A reduce task READs each map output segment in pieces of at most this size, each"
                  + " into a pooled registered buffer; must not exceed buffers.chunkSize.")
          .build();

  public static final ConfigEntry<Long> FETCH_MAX_BYTES_IN_FLIGHT =
      ConfigEntry.builder("fetch.maxBytesInFlight", ConfigType.BYTES)
          .defaultValue(32 * MIB)
          .range(64 * KIB, 16 * GIB)
          .scope(ConfigEntry.Scope.HADOOP)
          .side(ConfigEntry.Side.FETCHING)
          .doc(
              "Bytes a reduce task has READ or in flight and not yet handed to Hadoop's merge,"
                  + " shared evenly by its fetcher threads (mapreduce.reduce.shuffle.parallelcopies);"
                  + " this is direct memory of the task, on top of its heap.")
          .build();

  public static final ConfigEntry<Boolean> FETCH_HTTP_FALLBACK =
      ConfigEntry.builder("fetch.httpFallback", ConfigType.BOOLEAN)
          .defaultValue(true)
          .scope(ConfigEntry.Scope.HADOOP)
          .side(ConfigEntry.Side.FETCHING)
          .doc(
              "When a node's rdma-shuffle service can't be used (not installed, not answering,"
                  + " transport unreachable), fetch that node's map outputs over the stock HTTP"
                  + " shuffle (logged and counted in the job's counters). false: report such"
                  + " failures as fetch failures, as the stock shuffle reports a lost node.")
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

  // ---- Spark ShuffleManager only ----

  public static final ConfigEntry<Boolean> SPARK_ENABLED =
      ConfigEntry.builder("enabled", ConfigType.BOOLEAN)
          .defaultValue(true)
          .scope(ConfigEntry.Scope.SPARK)
          .doc(
              "Serve shuffles from registered memory. false: every shuffle of the application"
                  + " falls back to Spark's stock sort shuffle (logged once with this cause and"
                  + " counted); the manager stays in place.")
          .build();

  public static final ConfigEntry<Boolean> SPARK_READ_LOCAL =
      ConfigEntry.builder("read.local", ConfigType.BOOLEAN)
          .defaultValue(true)
          .scope(ConfigEntry.Scope.SPARK)
          .doc(
              "Read blocks of map outputs on this host (this executor's, and other executors' of"
                  + " the same host) straight from their mapped files, with no transport, as"
                  + " Spark's spark.shuffle.readHostLocalDisk does. false sends them through the"
                  + " transport like remote blocks (to measure the transport on one machine).")
          .build();

  public static final ConfigEntry<Boolean> SPARK_CHECKSUM_VERIFY =
      ConfigEntry.builder("checksum.verify", ConfigType.BOOLEAN)
          .defaultValue(true)
          .scope(ConfigEntry.Scope.SPARK)
          .doc(
              "Verify every block's checksum after reading it: Spark's shuffle checksum where it"
                  + " describes the committed bytes, otherwise a CRC32C computed when the map"
                  + " output is committed. A mismatch is a fetch failure, never wrong data."
                  + " false skips both.")
          .build();

  public static final ConfigEntry<Long> SPARK_READ_SEGMENT_SIZE =
      ConfigEntry.builder("read.segmentSize", ConfigType.BYTES)
          .defaultValue(8 * MIB)
          .range(64 * KIB, GIB)
          .scope(ConfigEntry.Scope.SPARK)
          .doc(
              "Largest single READ of block data. Consecutive small blocks of one map output are"
                  + " READ together up to this size; a larger block is READ in segments of this"
                  + " size and streamed to the task as they arrive. Bytes and READs in flight per"
                  + " task are bounded by spark.reducer.maxSizeInFlight and"
                  + " spark.reducer.maxReqsInFlight.")
          .build();

  /** Every entry, in the order the configuration page lists them. */
  public static final List<ConfigEntry<?>> ALL =
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
          VERBS_NATIVE_LIBRARY,
          SPARK_ENABLED,
          SPARK_READ_LOCAL,
          SPARK_CHECKSUM_VERIFY,
          SPARK_READ_SEGMENT_SIZE,

          SERVICE_MAX_REGISTERED_BYTES,
          FETCH_CHUNK_SIZE,
          FETCH_MAX_BYTES_IN_FLIGHT,
          FETCH_HTTP_FALLBACK);

  private static boolean isPowerOfTwo(long v) {
    return v > 0 && (v & (v - 1)) == 0;
  }
}
