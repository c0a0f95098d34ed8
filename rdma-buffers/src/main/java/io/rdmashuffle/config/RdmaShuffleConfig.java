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
                  + " its mappings. Outputs are registered when committed (while there is room) or"
                  + " when first asked for; beyond the bound the least recently asked-for ones are"
                  + " deregistered, and a reader still reading one asks again. Keep it well below"
                  + " the process's open-file limit (ulimit -n).")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Long> SERVE_MAX_PINNED_BYTES =
      ConfigEntry.builder("serve.maxPinnedBytes", ConfigType.BYTES)
          .defaultValue(4 * GIB)
          .range(64 * MIB, 4096 * GIB)
          .doc(
              "Bytes of map outputs a serving process keeps registered and pinned in RAM (verbs"
                  + " without on-demand paging; tcp pins nothing): RLIMIT_MEMLOCK must allow it."
                  + " Beyond it the least recently asked-for outputs are deregistered and"
                  + " registered again when asked for; nothing falls back to the stock shuffle for"
                  + " it.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  // Hadoop MapReduce only

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

  // ---- connection server: the serving side of every transport, and calls ----

  public static final ConfigEntry<Integer> SERVER_IO_THREADS =
      ConfigEntry.builder("server.ioThreads", ConfigType.INT)
          .defaultValue(4)
          .range(1, 64)
          .unit("threads")
          .doc(
              "I/O threads of the connection server, which serves every connection of the process"
                  + " (tcp READs, calls, verbs announcements) without a thread per connection; each"
                  + " runs the handshakes, requests and sends of its share of the connections.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_HANDSHAKES =
      ConfigEntry.builder("server.maxHandshakes", ConfigType.INT)
          .defaultValue(1024)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Connections that have not finished the authentication handshake, in total; one"
                  + " more is closed at once (logged, counted). A connection in its handshake"
                  + " holds a descriptor and about 1 KiB, no thread and no buffer, and is dropped"
                  + " at connect.timeout.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_HANDSHAKES_PER_SOURCE =
      ConfigEntry.builder("server.maxHandshakesPerSource", ConfigType.INT)
          .defaultValue(128)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Connections in their handshake from one source address; one more is closed at once"
                  + " (logged, counted), so one host can't take every handshake slot.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_CONNECTIONS =
      ConfigEntry.builder("server.maxConnections", ConfigType.INT)
          .defaultValue(4096)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Authenticated connections (READ and call) served at once; a peer that proves its"
                  + " secret beyond it is told the server is busy (it retries) and the refusal is"
                  + " logged and counted. A connection costs a few KiB of heap and a descriptor, no"
                  + " thread.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_CONNECTIONS_PER_SOURCE =
      ConfigEntry.builder("server.maxConnectionsPerSource", ConfigType.INT)
          .defaultValue(1024)
          .range(1, 1 << 20)
          .unit("connections")
          .doc("Authenticated connections served at once from one source address.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> SERVER_MAX_CONNECTIONS_PER_APPLICATION =
      ConfigEntry.builder("server.maxConnectionsPerApplication", ConfigType.INT)
          .defaultValue(4096)
          .range(1, 1 << 20)
          .unit("connections")
          .doc(
              "Authenticated connections served at once for one application (Spark application,"
                  + " MapReduce job), so one job can't take every connection of a NodeManager.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> SERVER_IDLE_TIMEOUT =
      ConfigEntry.builder("server.idleTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofMinutes(10))
          .range(Duration.ofMillis(100), Duration.ofDays(1))
          .doc(
              "A connection with nothing to do (no request, no answer pending) for this long is"
                  + " closed, on both sides; readers open a new one when they need it.")
          .build();

  public static final ConfigEntry<Duration> SERVER_SEND_TIMEOUT =
      ConfigEntry.builder("server.sendTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(60))
          .range(Duration.ofMillis(100), Duration.ofHours(1))
          .doc(
              "A send that makes no progress for this long (the peer stopped reading, or is"
                  + " gone) closes its connection and releases what it held.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Duration> SERVER_WITHDRAW_TIMEOUT =
      ConfigEntry.builder("server.withdrawTimeout", ConfigType.DURATION)
          .defaultValue(Duration.ofSeconds(10))
          .range(Duration.ofMillis(10), Duration.ofHours(1))
          .doc(
              "A withdrawn region (a shuffle unregistered, an output evicted) that a send is still"
                  + " streaming is released within this bound: the send's connection is closed"
                  + " (its reader retries), so the mapping and the descriptor are freed. READs of"
                  + " the region not yet started are refused at once.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Boolean> SERVER_SENDFILE =
      ConfigEntry.builder("server.sendfile", ConfigType.BOOLEAN)
          .defaultValue(true)
          .doc(
              "tcp READs of mapped files are sent with sendfile (FileChannel.transferTo: no copy"
                  + " through the JVM). false sends them from the mapping, for measurements.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> CALL_WORKERS =
      ConfigEntry.builder("call.workers", ConfigType.INT)
          .defaultValue(4)
          .range(1, 1024)
          .unit("threads")
          .doc(
              "Threads that answer calls (never the I/O threads); started when needed, ended"
                  + " after a minute idle.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> CALL_QUEUE =
      ConfigEntry.builder("call.queue", ConfigType.INT)
          .defaultValue(256)
          .range(1, 1 << 20)
          .unit("calls")
          .doc(
              "Calls waiting for a call worker; a call beyond it is answered busy at once (the"
                  + " caller retries later), logged and counted.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Long> CALL_MAX_REQUEST_BYTES =
      ConfigEntry.builder("call.maxRequestBytes", ConfigType.BYTES)
          .defaultValue(64 * KIB)
          .range(KIB, 16 * MIB)
          .doc(
              "Largest call request. A caller refuses to send a larger one; a server closes a"
                  + " connection that announces one.")
          .build();

  public static final ConfigEntry<Long> CALL_MAX_ANSWER_BYTES =
      ConfigEntry.builder("call.maxAnswerBytes", ConfigType.BYTES)
          .defaultValue(MIB)
          .range(KIB, 64 * MIB)
          .doc(
              "Largest call answer. A server answers a larger one with a refusal (too large); a"
                  + " caller closes a connection that announces one.")
          .build();

  public static final ConfigEntry<Integer> VERBS_MAX_ANNOUNCEMENTS =
      ConfigEntry.builder("verbs.maxAnnouncements", ConfigType.INT)
          .defaultValue(4096)
          .range(1, 1 << 20)
          .unit("announcements")
          .doc(
              "verbs: RDMA-CM connects announced by authenticated peers and not yet made, in total;"
                  + " each expires after connect.timeout. Beyond it announcements are refused.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  public static final ConfigEntry<Integer> VERBS_MAX_ANNOUNCEMENTS_PER_PEER =
      ConfigEntry.builder("verbs.maxAnnouncementsPerPeer", ConfigType.INT)
          .defaultValue(256)
          .range(1, 1 << 20)
          .unit("announcements")
          .doc("verbs: announced RDMA-CM connects not yet made, per peer address.")
          .side(ConfigEntry.Side.SERVING)
          .build();

  // ---- verbs: registration and served queue pairs ----

  public static final ConfigEntry<VerbsRegistration> VERBS_REGISTRATION =
      ConfigEntry.builder("verbs.registration", ConfigType.oneOf(VerbsRegistration.class))
          .defaultValue(VerbsRegistration.AUTO)
          .side(ConfigEntry.Side.SERVING)
          .doc(
              "How verbs registers served memory (map output files): auto uses on-demand paging"
                  + " (IBV_ACCESS_ON_DEMAND: nothing pinned, pages faulted in when READ, prefetched"
                  + " when published) where the device supports it for RC READ, else pins; pinned"
                  + " always pins (RLIMIT_MEMLOCK must allow it); odp requires on-demand paging and"
                  + " the transport does not start without it. The doctor shows which runs and why.")
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
          SERVE_MAX_OPEN_OUTPUTS,
          SERVE_MAX_PINNED_BYTES,
          VERBS_NATIVE_LIBRARY,
          SPARK_ENABLED,
          SPARK_READ_LOCAL,
          SPARK_CHECKSUM_VERIFY,
          SPARK_READ_SEGMENT_SIZE,

          FETCH_CHUNK_SIZE,
          FETCH_MAX_BYTES_IN_FLIGHT,
          FETCH_HTTP_FALLBACK,

          DEBUG_LEAK_DETECTION,

          // connection server
          SERVER_IO_THREADS,
          SERVER_MAX_HANDSHAKES,
          SERVER_MAX_HANDSHAKES_PER_SOURCE,
          SERVER_MAX_CONNECTIONS,
          SERVER_MAX_CONNECTIONS_PER_SOURCE,
          SERVER_MAX_CONNECTIONS_PER_APPLICATION,
          SERVER_IDLE_TIMEOUT,
          SERVER_SEND_TIMEOUT,
          SERVER_WITHDRAW_TIMEOUT,
          SERVER_SENDFILE,
          CALL_WORKERS,
          CALL_QUEUE,
          CALL_MAX_REQUEST_BYTES,
          CALL_MAX_ANSWER_BYTES,
          VERBS_MAX_ANNOUNCEMENTS,
          VERBS_MAX_ANNOUNCEMENTS_PER_PEER,

          // verbs: registration and served queue pairs
          VERBS_REGISTRATION,
          VERBS_SERVED_QUEUE_PAIRS,
          VERBS_SERVED_QUEUE_PAIRS_PER_PEER);

  private static boolean isPowerOfTwo(long v) {
    return v > 0 && (v & (v - 1)) == 0;
  }
}
