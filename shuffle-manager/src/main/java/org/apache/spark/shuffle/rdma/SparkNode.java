/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.fetch.BlockFetcher;
import io.rdmashuffle.fetch.FetchOptions;
import io.rdmashuffle.fetch.ReadCounters;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.spark.SparkNodeService;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one Spark executor (or a local-mode driver) runs of rdma-shuffle: the {@link NodeRuntime}
 * that serves the map outputs its tasks commit and reads the blocks its reduce tasks need, the
 * outputs it published, and the marker its map statuses carry. Started by the first task that needs
 * it; closed by the manager's stop or, since executors often get SIGTERM first, by a JVM shutdown
 * hook. Closing withdraws every output and unmaps everything.
 */
final class SparkNode implements AutoCloseable {
  private final String application;
  private final NodeRuntime runtime;
  private final PublishedOutputs published;
  private final ReadCounters counters = new ReadCounters();
  private final OwnerMarker marker;
  private final Thread shutdownHook;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Whether the NodeManager's Spark service serves this executor's outputs. */
  private final boolean nodeService;

  private SparkNode(
      String application, NodeRuntime runtime, PublishedOutputs published, boolean nodeService) {
    this.application = application;
    this.runtime = runtime;
    this.published = published;
    this.nodeService = nodeService;
    PeerAddress own = runtime.transport().localAddress();
    this.marker =
        new OwnerMarker(
            runtime.transport().kind(),
            nodeService
                ? new PeerAddress(own.host(), runtime.conf().get(SparkNodeService.PORT))
                : own);
    this.shutdownHook = new Thread(this::close, "rdma-shuffle-shutdown");
  }

  /**
   * Starts the transport the settings ask for and serves {@code application}'s outputs to peers
   * proving {@code secret}.
   *
   * @param host the host to advertise when the settings leave it empty
   * @param nodeService whether the NodeManager's rdma-shuffle Spark service on this host serves the
   *     outputs (Spark's external shuffle service is on): the marker names it, outputs are not
   *     registered here, and their meta files outlive this executor
   */
  static SparkNode start(
      RdmaConf conf, String application, byte[] secret, String host, boolean nodeService)
      throws TransportStartException {
    PublishedOutputs published = new PublishedOutputs();
    NodeRuntime runtime =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(conf)
                .defaultHost(host)
                .secrets(ApplicationSecrets.of(application, secret))
                .serving(published)
                .reading(true));
    SparkNode node;
    try {
      runtime.catalog().admit(application, secret);
      node = new SparkNode(application, runtime, published, nodeService);
    } catch (RuntimeException e) {
      runtime.close();
      throw e;
    }
    Runtime.getRuntime().addShutdownHook(node.shutdownHook);
    return node;
  }

  String application() {
    return application;
  }

  /** Whether this process pins the outputs it serves (verbs without on-demand paging). */
  boolean pinsServedOutputs() {
    return !nodeService && runtime.transport().registrar().pinsMemory();
  }

  RdmaConf conf() {
    return runtime.conf();
  }

  NodeRuntime runtime() {
    return runtime;
  }

  ReadCounters counters() {
    return counters;
  }

  PublishedOutputs published() {
    return published;
  }

  /**
   * What this executor's map statuses carry: who serves them (this executor, or the node's
   * service), over which transport.
   */
  OwnerMarker marker() {
    return marker;
  }

  /**
   * Serves a committed map output: writes its meta file (partition checksums: {@code known} when
   * Spark's describe the committed bytes, else CRC32C computed here), and registers it now when
   * there is room. A map that ran again here under the same id (the old fetch protocol) replaces
   * the earlier output. An output whose partitions are all empty has no data file (Spark writes
   * none): nothing to serve, and no reader ever asks for an empty block.
   *
   * @param knownAlgorithm Spark's checksum algorithm, or null with {@code known} null
   */
  void publish(
      int shuffleId,
      long mapId,
      Path dataFile,
      long[] lengths,
      ChecksumAlgorithm knownAlgorithm,
      long[] known)
      throws IOException {
    OutputId id = OutputId.spark(application, shuffleId, mapId);
    long total = 0;
    for (long l : lengths) {
      total += l;
    }
    if (published.dataFile(id) != null) {
      // the new commit rewrites the meta file: keep it, drop the old registration
      runtime.catalog().forget(id);
      published.remove(id, true);
    }
    if (total == 0) {
      return;
    }
    MetaFiles.commit(
        dataFile,
        shuffleId,
        mapId,
        lengths,
        knownAlgorithm,
        known,
        runtime.conf().get(SparkConfig.CHECKSUM_VERIFY));
    published.publish(id, dataFile);
    runtime.catalog().committed(id);
    if (!nodeService) {
      runtime.catalog().offer(id);
    }
  }

  /** Withdraws every output of a shuffle and deletes their meta files. */
  void removeShuffle(int shuffleId) {
    String shuffle = Integer.toString(shuffleId);
    published.removeShuffle(application, shuffle);
    runtime.catalog().forgetShuffle(application, shuffle);
  }

  /** A fetcher for one reduce task; close it when the task ends. */
  BlockFetcher newFetcher(FetchOptions options, Runnable onWait) {
    return new BlockFetcher(
        application,
        runtime.locatorClient(),
        runtime.catalog(),
        runtime.connections(),
        runtime.buffers(),
        options,
        counters,
        runtime.fetchDriver(),
        onWait);
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Withdraws everything and closes the runtime. Idempotent; safe from the shutdown hook. */
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
    try {
      runtime.close();
    } finally {
      if (!nodeService) {
        published.removeAll();
      }
      // else the node service serves the outputs after this executor: their meta files stay
      // (the NodeManager deletes the application's dirs when it ends)
    }
  }
}
