package io.rdmashuffle.mapoutput;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportSelector;
import io.rdmashuffle.transport.TransportStartException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one process needs to serve and read map outputs: its transport, the pool of registered
 * READ buffers, the connections to peers, the registry of map outputs it serves, and the
 * counters. One per process (a Spark executor, or the driver in local mode), started on first use
 * and closed by the engine's stop or, if that never comes (executors often get SIGTERM first),
 * by a JVM shutdown hook; closing withdraws and unmaps every map output.
 */
public final class ShuffleRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShuffleRuntime.class);

  private final RdmaConf conf;
  private final String application;
  private final Transport transport;
  private final BufferPool buffers;
  private final ConnectionPool connections;
  private final MapOutputRegistry registry;
  private final ReadCounters counters = new ReadCounters();
  private final DescriptorSeal seal;
  private final Thread shutdownHook;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ShuffleRuntime(RdmaConf conf, String application, byte[] secret, Transport transport) {
    this.conf = conf;
    this.seal = new DescriptorSeal(secret);
    this.application = application;
    this.transport = transport;
    this.buffers = new BufferPool(transport.registrar(),
        conf.get(RdmaShuffleConfig.BUFFERS_MIN_SIZE), conf.get(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE),
        conf.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES));
    this.connections = new ConnectionPool(transport, conf.get(RdmaShuffleConfig.CONNECTIONS_PER_PEER));
    this.registry = new MapOutputRegistry(transport.registrar(), transport.localAddress(),
        application, conf.get(RdmaShuffleConfig.PIECE_SIZE),
        conf.get(RdmaShuffleConfig.SPARK_CHECKSUM_VERIFY));
    this.shutdownHook = new Thread(this::close, "rdma-shuffle-shutdown");
  }

  /**
   * Starts the transport the settings ask for and everything above it.
   *
   * @param secret the application's secret (at least 16 bytes), proved by every peer
   * @param host the host to advertise when the settings leave it empty
   * @throws TransportStartException when no transport can start here
   */
  public static ShuffleRuntime start(RdmaConf conf, String application, byte[] secret, String host)
      throws TransportStartException {
    TransportMetrics metrics = new TransportMetrics();
    Transport transport = TransportSelector.standard().start(
        new TransportContext(conf, ApplicationSecrets.of(application, secret), host, metrics));
    ShuffleRuntime r;
    try {
      r = new ShuffleRuntime(conf, application, secret, transport);
    } catch (RuntimeException e) {
      transport.close();
      throw e;
    }
    Runtime.getRuntime().addShutdownHook(r.shutdownHook);
    LOG.info("rdma-shuffle serves map outputs over {} at {} for {}",
        transport.kind().name().toLowerCase(java.util.Locale.ROOT), transport.localAddress(),
        application);
    return r;
  }

  public RdmaConf conf() {
    return conf;
  }

  public String application() {
    return application;
  }

  public Transport transport() {
    return transport;
  }

  public TransportMetrics metrics() {
    return transport.metrics();
  }

  public BufferPool buffers() {
    return buffers;
  }

  /** Seals and opens this application's map output descriptors. */
  public DescriptorSeal seal() {
    return seal;
  }

  public MapOutputRegistry registry() {
    return registry;
  }

  public ReadCounters counters() {
    return counters;
  }

  /** A fetcher for one reduce task; close it when the task ends. */
  public BlockFetcher newFetcher(BlockFetcher.Options options, Runnable onWait) {
    return new BlockFetcher(registry, connections, buffers, application,
        transport.localAddress().host(), options, counters, onWait);
  }

  public boolean isClosed() {
    return closed.get();
  }

  /**
   * Withdraws and unmaps every map output, closes connections, the buffer pool and the
   * transport, in reverse order of creation. Idempotent; safe from the shutdown hook.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down: the hook runs, and finds us closed
      }
    }
    RuntimeException first = null;
    for (AutoCloseable c : new AutoCloseable[] {registry, connections, buffers, transport}) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("closing rdma-shuffle failed", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
