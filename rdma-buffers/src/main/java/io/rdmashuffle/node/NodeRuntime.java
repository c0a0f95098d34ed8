/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import io.rdmashuffle.config.ProcessLimits;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.ServerConfig;
import io.rdmashuffle.fetch.CoalescingLocator;
import io.rdmashuffle.fetch.FetchDriver;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.serve.ChecksumService;
import io.rdmashuffle.serve.LocateService;
import io.rdmashuffle.serve.OutputCatalog;
import io.rdmashuffle.serve.OutputSource;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.CallServices;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.provider.PinnedMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one process needs to serve map outputs, read them, or both, brought up in one place from a
 * {@link Context} that checks itself first: the transport (chosen by the settings), and on the
 * serving side the catalog of served outputs and its locate service, on the reading side the pool
 * of registered READ buffers and the connections to peers. A Spark executor serves and reads; a
 * NodeManager service serves; a MapReduce reduce task reads.
 *
 * <p>One per process (per NodeManager service), closed by its owner: in reverse order of creation,
 * keeping the first failure.
 */
public final class NodeRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeRuntime.class);

  /**
   * How to build a runtime. Fill it, then {@link NodeRuntime#start}: it concludes (checks and
   * completes) the context first, so a bad combination fails before anything is started.
   */
  public static final class Context {
    private RdmaConf conf;
    private String defaultHost;
    private ApplicationSecrets secrets;
    private TransportMetrics metrics;
    private OutputSource served;
    private boolean reading;
    private TransportSelector selector;
    private boolean bindAllAddresses;
    private boolean concluded;

    /** The settings (required). */
    public Context conf(RdmaConf value) {
      this.conf = value;
      return this;
    }

    /** The host to advertise when the settings leave {@code host} empty (required). */
    public Context defaultHost(String value) {
      this.defaultHost = value;
      return this;
    }

    /**
     * Listen on every address of the host (unless the {@code host} setting names one), still
     * advertising the default host: for a NodeManager's services, whose readers are on other hosts
     * whatever the host's own name resolves to here.
     */
    public Context bindAllAddresses() {
      this.bindAllAddresses = true;
      return this;
    }

    /** The applications' secrets; a new, empty set when not given. */
    public Context secrets(ApplicationSecrets value) {
      this.secrets = value;
      return this;
    }

    /** Counters to count into; new ones when not given. */
    public Context metrics(TransportMetrics value) {
      this.metrics = value;
      return this;
    }

    /** Serve the map outputs {@code source} finds (none: this process does not serve). */
    public Context serving(OutputSource source) {
      this.served = source;
      return this;
    }

    /** Read map outputs of peers (buffer pool and connections). */
    public Context reading(boolean value) {
      this.reading = value;
      return this;
    }

    /** How to choose and start the transport; the standard selector when not given. */
    public Context selector(TransportSelector value) {
      this.selector = value;
      return this;
    }

    /**
     * Checks the context and fills in what was left to defaults. Idempotent.
     *
     * @throws IllegalStateException naming what is missing or contradictory
     */
    public Context conclude() {
      if (concluded) {
        return this;
      }
      if (conf == null) {
        throw new IllegalStateException("NodeRuntime.Context: no settings (conf)");
      }
      if (defaultHost == null || defaultHost.isEmpty()) {
        throw new IllegalStateException("NodeRuntime.Context: no default host to advertise");
      }
      if (served == null && !reading) {
        throw new IllegalStateException(
            "NodeRuntime.Context: neither serving nor reading: nothing to start");
      }
      secrets = secrets == null ? new ApplicationSecrets() : secrets;
      metrics = metrics == null ? new TransportMetrics() : metrics;
      selector = selector == null ? TransportSelector.standard() : selector;
      concluded = true;
      return this;
    }

    public RdmaConf conf() {
      return conf;
    }

    public ApplicationSecrets secrets() {
      return secrets;
    }

    public TransportMetrics metrics() {
      return metrics;
    }
  }

  private final Context context;
  private final Transport transport;
  private final OutputCatalog catalog;
  private final LocateService locator;
  private final BufferPool buffers;
  private final ConnectionPool connections;
  private final FetchDriver fetchDriver;

  /** The locator this process's readers share (their calls per owner bounded and merged). */
  private final CoalescingLocator owners;

  private NodeRuntime(
      Context c, Transport transport, ServingBounds bounds, List<AutoCloseable> built) {
    this.context = c;
    this.transport = transport;
    RdmaConf conf = c.conf;
    if (c.served != null) {
      this.catalog =
          new OutputCatalog(
              transport.registrar(),
              c.served,
              bounds.limits(),
              c.secrets,
              transport::withdrawApplication);
      built.add(catalog);
      this.locator =
          new LocateService(
              catalog,
              transport.kind(),
              transport.localAddress(),
              conf.get(ServerConfig.CALL_MAX_ANSWER_BYTES));
      ChecksumService checksums = new ChecksumService(c.served, catalog);
      serve(transport, CallServices.LOCATE, "locate", locator::answer);
      serve(
          transport,
          CallServices.RELEASE,
          "release",
          (application, request) -> {
            locator.release(application, request);
            return java.nio.ByteBuffer.allocate(0);
          });
      serve(transport, CallServices.CHECKSUM, "checksum", checksums::answer);
    } else {
      this.catalog = null;
      this.locator = null;
    }
    this.owners =
        new CoalescingLocator(
            new TransportLocator(
                transport,
                conf.get(ServerConfig.CALL_MAX_ANSWER_BYTES),
                conf.get(ServerConfig.CALL_MAX_REQUEST_BYTES)),
            CoalescingLocator.callsPerOwner(conf.get(ServerConfig.CALL_WORKERS)));
    if (c.reading) {
      this.buffers =
          new BufferPool(
              transport.registrar(),
              conf.get(RdmaShuffleConfig.BUFFERS_MIN_SIZE),
              conf.get(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE),
              conf.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES));
      built.add(buffers);
      this.connections =
          new ConnectionPool(transport, conf.get(RdmaShuffleConfig.CONNECTIONS_PER_PEER));
      built.add(connections);
      this.fetchDriver = new FetchDriver();
      built.add(fetchDriver);
    } else {
      this.buffers = null;
      this.connections = null;
      this.fetchDriver = null;
    }
  }

  /**
   * Serves {@code service}'s calls with {@code answer}; a request it can't decode (its {@code
   * IllegalArgumentException} names the field) is refused as malformed.
   */
  private static void serve(
      Transport transport,
      int service,
      String what,
      java.util.function.BiFunction<String, java.nio.ByteBuffer, java.nio.ByteBuffer> answer) {
    transport.serveCalls(
        service,
        (application, request) -> {
          try {
            return answer.apply(application, request);
          } catch (IllegalArgumentException e) {
            throw new CallRefusedException(
                CallRefusedException.MALFORMED, "not a " + what + " request: " + e.getMessage());
          }
        });
  }

  /**
   * Concludes the context and starts everything it asks for.
   *
   * @throws TransportStartException when no transport can start here (the message says why)
   */
  public static NodeRuntime start(Context context) throws TransportStartException {
    Context c = Objects.requireNonNull(context).conclude();
    ServingBounds bounds =
        c.served == null ? null : ServingBounds.derive(c.conf, ProcessLimits.read(), c.reading);
    // the memlock limit must allow what this process pins: served outputs and/or READ buffers
    Transport t =
        c.selector.start(
            c.conf,
            c.secrets,
            c.defaultHost,
            c.metrics,
            PinnedMemory.of(
                c.conf,
                bounds == null ? 0 : bounds.limits().maxPinnedBytes(),
                c.served != null,
                c.reading),
            c.bindAllAddresses);
    List<AutoCloseable> built = new ArrayList<>();
    built.add(t);
    try {
      NodeRuntime r = new NodeRuntime(c, t, bounds, built);
      if (bounds != null && !bounds.explanation().isEmpty()) {
        LOG.info("serving bounds derived from this process's limits: {}", bounds.explanation());
      }
      LOG.info(
          "rdma-shuffle {} over {} at {}",
          c.served != null && c.reading
              ? "serves and reads"
              : c.served != null ? "serves" : "reads",
          t.kind().name().toLowerCase(Locale.ROOT),
          t.localAddress());
      return r;
    } catch (RuntimeException e) {
      closeAll(built, e);
      throw e;
    }
  }

  public Transport transport() {
    return transport;
  }

  public RdmaConf conf() {
    return context.conf;
  }

  public TransportMetrics metrics() {
    return context.metrics;
  }

  public ApplicationSecrets secrets() {
    return context.secrets;
  }

  /** The served outputs; null when this process does not serve. */
  public OutputCatalog catalog() {
    return catalog;
  }

  /** Answers locate requests from the catalog; null when this process does not serve. */
  public LocateService locator() {
    return locator;
  }

  /**
   * Asks the process that serves map outputs where to READ them, over a transport call to its
   * locate service: one locator for every reader of this process, which keeps at most twice {@code
   * call.workers} calls in flight to an owner and merges those that wait ({@link
   * CoalescingLocator}).
   */
  public CoalescingLocator locatorClient() {
    return owners;
  }

  /** The READ buffer pool; null when this process does not read. */
  public BufferPool buffers() {
    return buffers;
  }

  /** Connections to peers; null when this process does not read. */
  public ConnectionPool connections() {
    return connections;
  }

  /**
   * The thread that drives this process's block fetchers while their consumers are busy; null when
   * this process does not read.
   */
  public FetchDriver fetchDriver() {
    return fetchDriver;
  }

  /** Closes in reverse order of creation; throws the first failure with the rest suppressed. */
  @Override
  public void close() {
    List<AutoCloseable> all = new ArrayList<>();
    all.add(transport);
    if (catalog != null) {
      all.add(catalog);
    }
    if (buffers != null) {
      all.add(buffers);
      all.add(connections);
      all.add(fetchDriver);
    }
    closeAll(all, null);
  }

  private static void closeAll(List<AutoCloseable> built, RuntimeException pending) {
    RuntimeException first = pending;
    for (int i = built.size() - 1; i >= 0; i--) {
      try {
        built.get(i).close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("closing rdma-shuffle failed", e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null && first != pending) {
      throw first;
    }
  }
}
