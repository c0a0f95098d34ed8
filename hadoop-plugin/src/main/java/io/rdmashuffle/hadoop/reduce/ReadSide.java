/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.HadoopConf;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a reduce task's fetcher threads share: the core's reading runtime ({@link NodeRuntime}: the
 * transport, started for this task and proving the job's secret, the registered buffer pool READs
 * land in, the connections to NodeManagers), the counters, and which nodes this task fetches from
 * over HTTP instead (decided once per node, logged once, counted once). Created by {@link
 * RdmaShuffleConsumer#init}, closed when its shuffle ends.
 */
final class ReadSide implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReadSide.class);
  private static final long ALLOCATION_WAIT_MILLIS = 60_000;

  final RdmaConf conf;
  final String jobId;

  /** This task's partition. */
  final int reduce;

  final Transport transport;
  final BufferPool buffers;
  final ConnectionPool connections;
  final NodeLocator client;

  /** Hadoop's fetch retry for a node that can't be reached (a NodeManager restarting). */
  final FetchRetry retry;

  /** How long a READ waits for a pooled buffer before it is this task's shortage. */
  final long allocationWaitMillis;

  final int chunkSize;
  final long bytesInFlightPerFetcher;
  final boolean httpFallback;
  private final NodeRuntime runtime;
  private final Reporter reporter;
  private final Set<String> httpHosts = ConcurrentHashMap.newKeySet();
  private final String noTransport;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  ReadSide(
      RdmaConf conf,
      String jobId,
      int reduce,
      NodeRuntime runtime,
      String noTransport,
      NodeLocator client,
      FetchRetry retry,
      int fetchers,
      long allocationWaitMillis,
      Reporter reporter) {
    this.conf = conf;
    this.jobId = jobId;
    this.reduce = reduce;
    this.runtime = runtime;
    this.noTransport = noTransport;
    this.client = client;
    this.retry = retry;
    this.allocationWaitMillis = allocationWaitMillis;
    this.reporter = reporter;
    this.httpFallback = conf.get(MapReduceConfig.FETCH_HTTP_FALLBACK);
    this.chunkSize = (int) (long) conf.get(MapReduceConfig.FETCH_CHUNK_SIZE);
    this.bytesInFlightPerFetcher =
        Math.max(chunkSize, conf.get(MapReduceConfig.FETCH_MAX_BYTES_IN_FLIGHT) / fetchers);
    this.transport = runtime == null ? null : runtime.transport();
    this.buffers = runtime == null ? null : runtime.buffers();
    this.connections = runtime == null ? null : runtime.connections();
  }

  /**
   * Starts this task's reading runtime. When no transport can start and HTTP fallback is on, every
   * node is fetched over HTTP (logged, counted); otherwise the task fails with the cause.
   */
  static ReadSide start(
      RdmaConf jobConf,
      String jobId,
      int reduce,
      SecretKey shuffleSecret,
      NodeLocator client,
      FetchRetry retry,
      int fetchers,
      Reporter reporter)
      throws TransportStartException {
    // a reduce task only reads: its own responder (every transport has one) takes any free port
    RdmaConf conf = jobConf.with(Map.of(RdmaShuffleConfig.PORT, "0", RdmaShuffleConfig.HOST, ""));
    NodeRuntime.Context context =
        new NodeRuntime.Context()
            .conf(conf)
            .defaultHost(HadoopConf.localHost())
            .secrets(
                ApplicationSecrets.of(
                    jobId, JobSecrets.transportSecret(shuffleSecret.getEncoded(), jobId)))
            .reading(true);
    NodeRuntime runtime;
    try {
      runtime = NodeRuntime.start(context);
    } catch (TransportStartException e) {
      if (!conf.get(MapReduceConfig.FETCH_HTTP_FALLBACK)) {
        throw e;
      }
      return new ReadSide(
          conf,
          jobId,
          reduce,
          null,
          e.getMessage(),
          client,
          retry,
          fetchers,
          ALLOCATION_WAIT_MILLIS,
          reporter);
    }
    return new ReadSide(
        conf,
        jobId,
        reduce,
        runtime,
        null,
        client,
        retry,
        fetchers,
        ALLOCATION_WAIT_MILLIS,
        reporter);
  }

  /** Whether this task fetches from {@code host} over the stock HTTP shuffle. */
  boolean usesHttp(MapHost host) {
    if (transport == null) {
      fallBack(host, "this task's transport could not start: " + noTransport);
      return true;
    }
    return httpHosts.contains(host.getHostName());
  }

  /**
   * From now on, fetches {@code host}'s outputs over HTTP; logged and counted the first time.
   *
   * @return false when HTTP fallback is off (the caller reports a failure instead)
   */
  boolean fallBack(MapHost host, String why) {
    if (!httpFallback) {
      LOG.warn(
          "can't READ map outputs of {} and HTTP fallback is off ({}=false): {}",
          host.getHostName(),
          conf.keyOf(MapReduceConfig.FETCH_HTTP_FALLBACK),
          why);
      return false;
    }
    if (httpHosts.add(host.getHostName())) {
      count(RdmaShuffleCounter.FALLBACK_NODES, 1);
      LOG.warn(
          "fetching map outputs of {} over the stock HTTP shuffle: {}", host.getHostName(), why);
    }
    return true;
  }

  /**
   * Whether {@code host}, unreachable, is tried again later (NodeManager restart retry); counted
   * when it is.
   */
  boolean tryAgainLater(ShuffleSchedulerImpl<?, ?> scheduler, MapHost host, String why) {
    if (!retry.tryAgainLater(scheduler, host, why)) {
      return false;
    }
    count(RdmaShuffleCounter.NODE_RETRIES, 1);
    return true;
  }

  void count(RdmaShuffleCounter c, long n) {
    reporter.getCounter(c).increment(n);
  }

  TransportMetrics metrics() {
    return transport == null ? null : transport.metrics();
  }

  /** Closes the runtime (connections, buffers, transport). Idempotent. */
  @Override
  public void close() {
    if (runtime != null && closed.compareAndSet(false, true)) {
      runtime.close();
    }
  }
}
