/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.fetch.BlockSource;
import io.rdmashuffle.fetch.ReadCounters;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.metrics.LatencyHistogram;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.serve.ServingMetrics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.IndexShuffleBlockResolver;
import org.apache.spark.shuffle.ShuffleBlockResolver;
import org.apache.spark.shuffle.ShuffleHandle;
import org.apache.spark.shuffle.ShuffleManager;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.shuffle.sort.SortShuffleManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rdma-shuffle's Spark ShuffleManager: {@code
 * spark.shuffle.manager=org.apache.spark.shuffle.rdma.RdmaShuffleManager}. One per driver and
 * executor, created by Spark.
 *
 * <ul>
 *   <li>Map tasks write through Spark's sort shuffle writers (kept in a {@link SortShuffleManager},
 *       which also keeps serving blocks the stock way); on commit the output is published and the
 *       map status carries this executor's {@link OwnerMarker}.
 *   <li>Reduce tasks ask each owner where to READ and READ the blocks one-sided ({@link
 *       RdmaShuffleReader}).
 *   <li>Fallback to the stock sort shuffle is decided per shuffle on the driver (switched off, or
 *       Spark encrypts network traffic), per map output (it could not be published) and per reduce
 *       task (some map output has no marker, or is served over a transport this executor does not
 *       run, or no transport runs here): always correct, logged once per cause, counted ({@link
 *       FallbackLog}). The driver never decides for executors from its own node's hardware.
 *   <li>The transport and everything registered live in one {@link SparkNode} per process ({@link
 *       ProcessNode}), started by the first task that needs it, closed by {@link #stop()} or a
 *       shutdown hook.
 *   <li>With {@code spark.shuffle.service.enabled=true} (YARN with dynamic allocation) the executor
 *       registers with the NodeManager's rdma-shuffle Spark service, which hosts Spark's external
 *       shuffle service, and its map statuses name that service as owner: reducers READ from it
 *       whether or not this executor still runs, and readers that can't use our transport fetch
 *       from it the stock way.
 * </ul>
 */
public final class RdmaShuffleManager implements ShuffleManager {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaShuffleManager.class);

  private final SparkConf conf;
  private final boolean isDriver;
  private final RdmaConf settings;
  private final SortShuffleManager sort;
  private final FallbackLog fallbacks = new FallbackLog();
  private final ChecksumAlgorithm exactSparkChecksums;
  private final String disabledBecause;

  /** Whether the NodeManager's Spark service serves this executor's map outputs. */
  private final boolean nodeService;

  /** This process's node: started on first use, or why it can't start. */
  private final ProcessNode node;

  /** Guards {@link #sourceRegistered}. */
  private final Object lock = new Object();

  /**
   * Reduce tasks read by us, and how many of them read a map range (AQE skew splits, local reads).
   */
  private final LongAdder readers = new LongAdder();

  private final LongAdder readersOfMapRanges = new LongAdder();
  private boolean sourceRegistered;

  /** Tasks this process runs at once (0: not known yet); see {@link ExecutorCores}. */
  private volatile int cores;

  /** Called by Spark (SparkEnv) with the application's configuration. */
  public RdmaShuffleManager(SparkConf conf, boolean isDriver) {
    this.conf = conf;
    this.isDriver = isDriver;
    // a bad setting stops the driver or executor here, naming key and value
    this.settings = SparkSettings.load(conf);
    // with Spark's external shuffle service (YARN, dynamic allocation), the NodeManager's
    // rdma-shuffle Spark service serves the map outputs: the map statuses name it as owner
    this.nodeService = conf.getBoolean("spark.shuffle.service.enabled", false);
    if (nodeService && !conf.get("spark.master", "").startsWith("yarn")) {
      throw new IllegalArgumentException(
          "spark.shuffle.service.enabled=true with master "
              + conf.get("spark.master", "(none)")
              + ": rdma-shuffle serves map outputs from an"
              + " external shuffle service only on YARN, with its own Spark service in the"
              + " NodeManagers (README: Spark on YARN with dynamic allocation). Elsewhere turn the"
              + " service off (with dynamic allocation, use"
              + " spark.dynamicAllocation.shuffleTracking.enabled).");
    }
    // Spark's writers read it when a map task starts, after this
    SparkSettings.chooseWriteChecksum(conf);
    this.exactSparkChecksums = SparkSettings.exactSparkChecksums(conf);
    this.disabledBecause = SparkSettings.disabledBecause(conf, settings);
    this.sort = new SortShuffleManager(conf);
    this.node =
        new ProcessNode(conf, settings, nodeService, this::executorCores, this::registerSource);
    if (!isDriver && disabledBecause == null) {
      node.startEagerly();
    }
  }

  // ---- driver: one decision per shuffle -----------------------------------------------------

  @Override
  public <K, V, C> ShuffleHandle registerShuffle(int shuffleId, ShuffleDependency<K, V, C> dep) {
    ShuffleHandle sortHandle = sort.registerShuffle(shuffleId, dep);
    registerSource();
    if (disabledBecause != null) {
      fallbacks.record(
          SparkSettings.isEncryptionCause(disabledBecause)
              ? FallbackLog.Cause.NETWORK_ENCRYPTION
              : FallbackLog.Cause.DISABLED,
          "shuffle " + shuffleId,
          disabledBecause);
      return sortHandle;
    }
    if (isLocalMaster() && node.start() == null) {
      // the driver runs the tasks itself: it needs the transport
      fallbacks.record(
          FallbackLog.Cause.TRANSPORT_UNAVAILABLE, "shuffle " + shuffleId, node.cause());
      return sortHandle;
    }
    return new RdmaShuffleHandle<>(shuffleId, dep, sortHandle);
  }

  private boolean isLocalMaster() {
    String master = conf.get("spark.master", "");
    return master.startsWith("local") && !master.startsWith("local-cluster");
  }

  // ---- executors: writing and reading -------------------------------------------------------

  @Override
  public <K, V> ShuffleWriter<K, V> getWriter(
      ShuffleHandle handle, long mapId, TaskContext context, ShuffleWriteMetricsReporter metrics) {
    if (handle instanceof RdmaShuffleHandle<?, ?, ?> h) {
      ShuffleWriter<K, V> w = sort.getWriter(h.sortHandle(), mapId, context, metrics);
      return new RdmaShuffleWriter<>(w, this, handle.shuffleId(), mapId, metrics);
    }
    return sort.getWriter(handle, mapId, context, metrics);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <K, C> ShuffleReader<K, C> getReader(
      ShuffleHandle handle,
      int startMapIndex,
      int endMapIndex,
      int startPartition,
      int endPartition,
      TaskContext context,
      ShuffleReadMetricsReporter metrics) {
    if (!(handle instanceof RdmaShuffleHandle<?, ?, ?> h)) {
      return sort.getReader(
          handle, startMapIndex, endMapIndex, startPartition, endPartition, context, metrics);
    }
    String what =
        "reduce partitions ["
            + startPartition
            + ", "
            + endPartition
            + ") of shuffle "
            + handle.shuffleId();
    SparkNode n = node(what);
    List<BlockSource> sources =
        n == null
            ? null
            : new ReadSources(n, fallbacks)
                .of(
                    handle.shuffleId(),
                    startMapIndex,
                    endMapIndex,
                    startPartition,
                    endPartition,
                    what);
    if (sources == null) {
      return sort.getReader(
          h.sortHandle(),
          startMapIndex,
          endMapIndex,
          startPartition,
          endPartition,
          context,
          metrics);
    }
    readers.increment();
    if (startMapIndex != 0 || endMapIndex != Integer.MAX_VALUE) {
      readersOfMapRanges.increment();
    }
    BaseShuffleHandle<K, ?, C> base = (BaseShuffleHandle<K, ?, C>) handle;
    return new RdmaShuffleReader<>(
        base,
        sources,
        context,
        metrics,
        n,
        SparkSettings.fetchOptions(conf, n.conf(), executorCores()),
        readsRunsAsOneStream(base, startPartition, endPartition, context));
  }

  /**
   * Whether a reader reads each run of contiguous blocks of a map output as one stream, when
   * Spark's own reader would fetch them in a batch: more than one partition, the batch asked for
   * (AQE sets the task's property unless {@code spark.sql.adaptive.fetchShuffleBlocksInBatch} is
   * off), a serializer whose records can be relocated, and streams that concatenate. One
   * decompressing and deserializing stream per run instead of one per block: at thousands of map
   * outputs a task's blocks are mostly a few hundred bytes, and each stream costs buffers of tens
   * of KB.
   */
  private boolean readsRunsAsOneStream(
      BaseShuffleHandle<?, ?, ?> handle,
      int startPartition,
      int endPartition,
      TaskContext context) {
    return endPartition - startPartition > 1
        && "true"
            .equals(
                context.getLocalProperty(
                    SortShuffleManager.FETCH_SHUFFLE_BLOCKS_IN_BATCH_ENABLED_KEY()))
        && handle.dependency().serializer().supportsRelocationOfSerializedObjects()
        && SparkSettings.concatenatingStreams(conf);
  }

  private int executorCores() {
    int c = cores;
    if (c == 0) {
      c = ExecutorCores.of(conf, isLocalMaster());
      cores = c;
    }
    return c;
  }

  // ---- the process's node ---------------------------------------------------------------------

  /**
   * This process's node, started on first use; null when no transport can run here (then {@code
   * what} falls back: counted, and logged once per cause).
   */
  SparkNode node(String what) {
    SparkNode n = node.start();
    if (n == null) {
      fallbacks.record(FallbackLog.Cause.TRANSPORT_UNAVAILABLE, what, node.cause());
    }
    return n;
  }

  private void registerSource() {
    synchronized (lock) {
      if (sourceRegistered || SparkEnv.get() == null) {
        return;
      }
      sourceRegistered = true;
    }
    try {
      SparkEnv.get().metricsSystem().registerSource(new RdmaShuffleSource(this));
    } catch (RuntimeException e) {
      LOG.warn("rdma-shuffle: metrics source not registered", e);
    }
  }

  IndexShuffleBlockResolver indexResolver() {
    return sort.shuffleBlockResolver();
  }

  ChecksumAlgorithm exactSparkChecksums() {
    return exactSparkChecksums;
  }

  FallbackLog fallbacks() {
    return fallbacks;
  }

  // ---- observability ------------------------------------------------------------------------

  /**
   * Every counter of this process by name: transport (bytes and READs, latency, failures by kind,
   * registered bytes and regions), the serving side (registrations, evictions, requests by
   * outcome), blocks read, READ buffers lent, fallbacks by cause. Zeros before the node starts; the
   * key set never changes.
   */
  public Map<String, Long> metricsSnapshot() {
    SparkNode n = node.ifStarted();
    Map<String, Long> m = new LinkedHashMap<>();
    TransportMetrics t =
        n == null ? new TransportMetrics(new MemoryAccounting()) : n.runtime().metrics();
    m.putAll(t.snapshot());
    m.putAll((n == null ? new ServingMetrics() : n.runtime().catalog().metrics()).snapshot());
    m.put(
        SparkCounter.MAP_OUTPUTS_PUBLISHED.exportName(),
        n == null ? 0L : n.published().publishedTotal());
    m.put(
        SparkCounter.MAP_OUTPUTS_SERVED.exportName(), n == null ? 0L : (long) n.published().size());
    m.put(
        SparkCounter.BUFFER_POOL_BYTES.exportName(),
        n == null ? 0L : n.runtime().buffers().registeredBytes());
    m.put(
        SparkCounter.BUFFER_POOL_LENT_BYTES.exportName(),
        n == null ? 0L : n.runtime().buffers().lentBytes());
    m.putAll((n == null ? new ReadCounters() : n.counters()).snapshot());
    m.put(SparkCounter.READERS.exportName(), readers.sum());
    m.put(SparkCounter.READERS_OF_MAP_RANGES.exportName(), readersOfMapRanges.sum());
    m.put(
        SparkCounter.LOCATE_CALLS.exportName(),
        n == null ? 0L : n.runtime().locatorClient().calls());
    m.putAll(fallbacks.snapshot());
    m.put(SparkCounter.FALLBACKS.exportName(), fallbacks.total());
    return m;
  }

  LatencyHistogram readLatency() {
    SparkNode n = node.ifStarted();
    return n == null ? null : n.runtime().metrics().readLatency();
  }

  /**
   * The secret the transport's handshake proves for {@code application} under Spark's security
   * settings (see SparkSettings#secret for the policy); for tools and tests that talk to executors'
   * transports.
   */
  public static byte[] transportSecret(
      org.apache.spark.SecurityManager security, String application) {
    return SparkSettings.secret(security, application);
  }

  /** The node's transport address and kind if it started (tests, tools), else null. */
  public OwnerMarker ownerIfStarted() {
    SparkNode n = node.ifStarted();
    return n == null ? null : n.marker();
  }

  /** Why no transport runs in this process, or null. */
  public String unavailableCause() {
    return node.cause();
  }

  /** Why every shuffle of this application runs the stock shuffle, or null. */
  public String disabledCause() {
    return disabledBecause;
  }

  // ---- cleanup --------------------------------------------------------------------------------

  @Override
  public boolean unregisterShuffle(int shuffleId) {
    SparkNode n = node.ifStarted();
    if (n != null) {
      n.removeShuffle(shuffleId);
    }
    return sort.unregisterShuffle(shuffleId);
  }

  @Override
  public ShuffleBlockResolver shuffleBlockResolver() {
    return sort.shuffleBlockResolver();
  }

  @Override
  public void stop() {
    try {
      node.stop();
    } finally {
      sort.stop();
    }
  }

  boolean isDriver() {
    return isDriver;
  }

  /** Settings keys as this engine spells them (messages). */
  String keyOf(io.rdmashuffle.config.ConfigEntry<?> e) {
    return settings.keyOf(e);
  }

  boolean enabled() {
    return settings.get(SparkConfig.ENABLED);
  }
}
