package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.BlockFetcher;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.FallbackLog;
import io.rdmashuffle.mapoutput.MapOutputDescriptor;
import io.rdmashuffle.mapoutput.ShuffleRuntime;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.metrics.LatencyHistogram;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.TransportSelector;
import java.util.ArrayList;
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
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.Iterator;
import scala.collection.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * rdma-shuffle's Spark ShuffleManager: {@code
 * spark.shuffle.manager=org.apache.spark.shuffle.rdma.RdmaShuffleManager}. One per driver and
 * executor, created by Spark.
 *
 * <ul>
 *   <li>Map tasks write through Spark's sort shuffle writers (kept in a {@link
 *       SortShuffleManager}, which also keeps serving blocks the stock way); on commit the output
 *       is registered read-only and its descriptor rides in the map status.
 *   <li>Reduce tasks READ the blocks one-sided ({@link RdmaShuffleReader}).
 *   <li>Fallback to the stock sort shuffle is decided per shuffle on the driver (switched off,
 *       or the configured transport can't run), per map output (it could not be published) and
 *       per reduce task (some map outputs have no descriptor, or no transport runs here): always
 *       correct, logged once per cause, counted ({@link FallbackLog}).
 *   <li>The transport and everything registered live in one {@link ShuffleRuntime} per process,
 *       started by the first task that needs it, closed by {@link #stop()} or a shutdown hook.
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
  private final Object lock = new Object();
  /** Reduce tasks read by us, and how many of them read a map range (AQE skew splits, local reads). */
  private final LongAdder readers = new LongAdder();
  private final LongAdder readersOfMapRanges = new LongAdder();
  private volatile ShuffleRuntime runtime;
  private volatile String unavailable;
  private volatile boolean stopped;
  private String driverUnavailable;
  private boolean driverProbed;
  private boolean sourceRegistered;

  /** Called by Spark (SparkEnv) with the application's configuration. */
  public RdmaShuffleManager(SparkConf conf, boolean isDriver) {
    this.conf = conf;
    this.isDriver = isDriver;
    // a bad setting stops the driver or executor here, naming key and value
    this.settings = SparkSettings.load(conf);
    if (conf.getBoolean("spark.shuffle.service.enabled", false)) {
      throw new IllegalArgumentException("spark.shuffle.service.enabled=true: rdma-shuffle serves"
          + " map outputs from the executors that wrote them, and Spark's external shuffle"
          + " service only accepts executors of its SortShuffleManager. Turn the service off"
          + " (with dynamic allocation, use spark.dynamicAllocation.shuffleTracking.enabled).");
    }
    this.exactSparkChecksums = SparkSettings.exactSparkChecksums(conf);
    this.sort = new SortShuffleManager(conf);
  }

  // ---- driver: one decision per shuffle -----------------------------------------------------

  @Override
  public <K, V, C> ShuffleHandle registerShuffle(int shuffleId, ShuffleDependency<K, V, C> dep) {
    ShuffleHandle sortHandle = sort.registerShuffle(shuffleId, dep);
    registerSource();
    String cause = fallbackCause(shuffleId);
    if (cause != null) {
      fallbacks.record(settings.get(RdmaShuffleConfig.SPARK_ENABLED)
          ? FallbackLog.Cause.TRANSPORT_UNAVAILABLE : FallbackLog.Cause.DISABLED,
          "shuffle " + shuffleId, cause);
      return sortHandle;
    }
    return new RdmaShuffleHandle<>(shuffleId, dep, sortHandle);
  }

  /** Why shuffle {@code shuffleId} can't be ours, or null. */
  private String fallbackCause(int shuffleId) {
    if (!settings.get(RdmaShuffleConfig.SPARK_ENABLED)) {
      return settingsKey(RdmaShuffleConfig.SPARK_ENABLED) + "=false";
    }
    if (isLocalMaster()) {
      // the driver runs the tasks: it needs the transport itself
      return startRuntime() == null ? unavailable : null;
    }
    synchronized (lock) {
      if (!driverProbed) {
        driverProbed = true;
        TransportSelector.Choice c = TransportSelector.standard().choose(settings);
        TransportKind forced = settings.get(RdmaShuffleConfig.TRANSPORT);
        if (forced != TransportKind.AUTO && !c.probes().get(forced).available()) {
          driverUnavailable = "transport " + forced.name().toLowerCase(java.util.Locale.ROOT)
              + " can't run: " + c.probes().get(forced).cause();
        }
      }
      return driverUnavailable;
    }
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
      return sort.getReader(handle, startMapIndex, endMapIndex, startPartition, endPartition,
          context, metrics);
    }
    String what = "reduce partitions [" + startPartition + ", " + endPartition + ") of shuffle "
        + handle.shuffleId();
    ShuffleRuntime r = runtime(what);
    List<BlockFetcher.Source> sources = r == null ? null : sources(r, handle.shuffleId(),
        startMapIndex, endMapIndex, startPartition, endPartition, what);
    if (sources == null) {
      return sort.getReader(h.sortHandle(), startMapIndex, endMapIndex, startPartition,
          endPartition, context, metrics);
    }
    readers.increment();
    if (startMapIndex != 0 || endMapIndex != Integer.MAX_VALUE) {
      readersOfMapRanges.increment();
    }
    return new RdmaShuffleReader<>((BaseShuffleHandle<K, ?, C>) handle, sources, context,
        metrics, r, fetchOptions());
  }

  /**
   * The map outputs a reduce task reads, with their descriptors; null when some have none
   * (written where no transport ran, or migrated by Spark): then the task reads the stock way.
   */
  private List<BlockFetcher.Source> sources(ShuffleRuntime r, int shuffleId, int startMapIndex,
      int endMapIndex, int startPartition, int endPartition, String what) {
    Iterator<Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>>> it =
        SparkEnv.get().mapOutputTracker().getMapSizesByExecutorId(
            shuffleId, startMapIndex, endMapIndex, startPartition, endPartition);
    List<BlockFetcher.Source> out = new ArrayList<>();
    while (it.hasNext()) {
      Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>> e = it.next();
      BlockManagerId address = e._1();
      String text = address.topologyInfo().isDefined() ? address.topologyInfo().get() : null;
      if (!MapOutputDescriptor.isText(text)) {
        fallbacks.record(FallbackLog.Cause.UNPUBLISHED_MAP_OUTPUT, what,
            "map outputs of executor " + address.executorId() + " carry no descriptor");
        return null;
      }
      MapOutputDescriptor d;
      try {
        d = MapOutputDescriptor.fromText(text, r.seal());
      } catch (IllegalArgumentException bad) {
        fallbacks.record(FallbackLog.Cause.UNPUBLISHED_MAP_OUTPUT, what,
            "a descriptor of executor " + address.executorId() + " can't be used: "
                + bad.getMessage());
        return null;
      }
      Map<Integer, List<ShuffleBlockId>> byMapIndex = new LinkedHashMap<>();
      for (Tuple3<BlockId, Object, Object> b : CollectionConverters.asJava(e._2())) {
        if (!(b._1() instanceof ShuffleBlockId id) || id.mapId() != d.mapId()) {
          throw new IllegalStateException(
              "block " + b._1() + " listed at a location describing " + d);
        }
        byMapIndex.computeIfAbsent((Integer) b._3(), k -> new ArrayList<>()).add(id);
      }
      for (Map.Entry<Integer, List<ShuffleBlockId>> m : byMapIndex.entrySet()) {
        out.add(RdmaShuffleReader.source(address, d, m.getKey(),
            RdmaShuffleReader.reduceIds(m.getValue())));
      }
    }
    return out;
  }

  private BlockFetcher.Options fetchOptions() {
    long inFlight = SparkSettings.maxSizeInFlight(conf);
    long segment = Math.min(settings.get(RdmaShuffleConfig.SPARK_READ_SEGMENT_SIZE),
        Math.min(inFlight, settings.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES) / 4));
    return new BlockFetcher.Options(inFlight, SparkSettings.maxReqsInFlight(conf),
        (int) Math.max(segment, 64 * 1024), SparkSettings.readLocal(settings),
        settings.get(RdmaShuffleConfig.SPARK_CHECKSUM_VERIFY),
        settings.get(RdmaShuffleConfig.READ_TIMEOUT).toMillis());
  }

  // ---- the process's runtime ------------------------------------------------------------------

  /**
   * This process's runtime, started on first use; null when no transport can run here (then
   * {@code what} falls back: counted, and logged once per cause).
   */
  ShuffleRuntime runtime(String what) {
    ShuffleRuntime r = startRuntime();
    if (r == null) {
      fallbacks.record(FallbackLog.Cause.TRANSPORT_UNAVAILABLE, what, unavailable);
    }
    return r;
  }

  private ShuffleRuntime startRuntime() {
    ShuffleRuntime r = runtime;
    if (r != null) {
      return r;
    }
    synchronized (lock) {
      if (runtime != null || unavailable != null) {
        return runtime;
      }
      if (stopped) {
        unavailable = "the shuffle manager was stopped";
        return null;
      }
      SparkEnv env = SparkEnv.get();
      String application = env.conf().getAppId();
      try {
        runtime = ShuffleRuntime.start(settings, application,
            SparkSettings.secret(env.securityManager(), application),
            env.blockManager().blockManagerId().host());
      } catch (Exception e) {
        unavailable = e.getMessage() == null ? e.toString() : e.getMessage();
        LOG.warn("rdma-shuffle: no transport can start in this process: {}", unavailable);
        LOG.debug("transport start failure", e);
      }
      registerSource();
      return runtime;
    }
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

  private String settingsKey(io.rdmashuffle.config.ConfigEntry<?> e) {
    return settings.keyOf(e);
  }

  // ---- observability ------------------------------------------------------------------------

  /**
   * Every counter of this process by name: transport (bytes and READs, latency, failures by
   * kind, registered bytes and regions), map outputs served, blocks read, fallbacks by cause.
   * Zeros before the runtime starts; the key set never changes.
   */
  public Map<String, Long> metricsSnapshot() {
    ShuffleRuntime r = runtime;
    Map<String, Long> m = new LinkedHashMap<>();
    TransportMetrics t = r == null ? new TransportMetrics(new MemoryAccounting()) : r.metrics();
    m.putAll(t.snapshot());
    m.put("mapOutputsPublished", r == null ? 0L : r.registry().publishedTotal());
    m.put("mapOutputsServed", r == null ? 0L : (long) r.registry().published());
    m.put("mapOutputBytesRegistered", r == null ? 0L : r.registry().registeredBytes());
    m.put("bufferPoolBytes", r == null ? 0L : r.buffers().registeredBytes());
    m.putAll(r == null ? new io.rdmashuffle.mapoutput.ReadCounters().snapshot()
        : r.counters().snapshot());
    m.put("readers", readers.sum());
    m.put("readersOfMapRanges", readersOfMapRanges.sum());
    m.putAll(fallbacks.snapshot());
    m.put("fallbacks", fallbacks.total());
    return m;
  }

  LatencyHistogram readLatency() {
    ShuffleRuntime r = runtime;
    return r == null ? null : r.metrics().readLatency();
  }

  /**
   * The secret the transport's handshake proves for {@code application} under Spark's security
   * settings (see SparkSettings#secret for the policy); for tools and tests that talk to
   * executors' transports.
   */
  public static byte[] transportSecret(org.apache.spark.SecurityManager security,
      String application) {
    return SparkSettings.secret(security, application);
  }

  /** The runtime if it started (tests, tools). */
  public ShuffleRuntime runtimeIfStarted() {
    return runtime;
  }

  /** Why no transport runs in this process, or null. */
  public String unavailableCause() {
    return unavailable;
  }

  // ---- cleanup --------------------------------------------------------------------------------

  @Override
  public boolean unregisterShuffle(int shuffleId) {
    ShuffleRuntime r = runtime;
    if (r != null) {
      r.registry().removeShuffle(shuffleId);
    }
    return sort.unregisterShuffle(shuffleId);
  }

  @Override
  public ShuffleBlockResolver shuffleBlockResolver() {
    return sort.shuffleBlockResolver();
  }

  @Override
  public void stop() {
    synchronized (lock) {
      stopped = true;
    }
    ShuffleRuntime r = runtime;
    try {
      if (r != null) {
        r.close();
      }
    } finally {
      sort.stop();
    }
  }

  boolean isDriver() {
    return isDriver;
  }
}
