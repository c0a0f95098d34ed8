package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportSelector;
import io.rdmashuffle.transport.TransportStartException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a reduce task's fetcher threads share: the transport (started for this task, proving the
 * job's secret), the registered buffer pool READs land in, the connections to NodeManagers, the
 * counters, and which nodes this task fetches from over HTTP instead (decided once per node,
 * logged once, counted once). Created by {@link RdmaShuffleConsumer#init}, closed by its close.
 */
final class ReadSide implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReadSide.class);

  final RdmaConf conf;
  final String jobId;
  final Transport transport;
  final BufferPool buffers;
  final ConnectionPool connections;
  final MapOutputsClient client;
  final int chunkSize;
  final long bytesInFlightPerFetcher;
  final boolean httpFallback;
  private final Reporter reporter;
  private final Set<String> httpHosts = ConcurrentHashMap.newKeySet();
  private final String noTransport;

  private ReadSide(RdmaConf conf, String jobId, Transport transport, String noTransport,
      MapOutputsClient client, int fetchers, Reporter reporter) {
    this.conf = conf;
    this.jobId = jobId;
    this.transport = transport;
    this.noTransport = noTransport;
    this.client = client;
    this.reporter = reporter;
    this.httpFallback = conf.get(MapReduceConfig.FETCH_HTTP_FALLBACK);
    this.chunkSize = (int) (long) conf.get(MapReduceConfig.FETCH_CHUNK_SIZE);
    this.bytesInFlightPerFetcher =
        Math.max(chunkSize, conf.get(MapReduceConfig.FETCH_MAX_BYTES_IN_FLIGHT) / fetchers);
    if (transport == null) {
      this.buffers = null;
      this.connections = null;
    } else {
      this.buffers = new BufferPool(transport.registrar(),
          conf.get(RdmaShuffleConfig.BUFFERS_MIN_SIZE), conf.get(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE),
          conf.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES));
      this.connections =
          new ConnectionPool(transport, conf.get(RdmaShuffleConfig.CONNECTIONS_PER_PEER));
    }
  }

  /**
   * Starts this task's transport. When it can't start and HTTP fallback is on, every node is
   * fetched over HTTP (logged, counted); otherwise the task fails with the cause.
   */
  static ReadSide start(RdmaConf jobConf, String jobId, SecretKey shuffleSecret,
      MapOutputsClient client, int fetchers, Reporter reporter) throws TransportStartException {
    // a reduce task only reads: its own responder (every transport has one) takes any free port
    RdmaConf conf = jobConf.with(Map.of(RdmaShuffleConfig.PORT, "0", RdmaShuffleConfig.HOST, ""));
    ApplicationSecrets secrets =
        ApplicationSecrets.of(jobId, JobSecrets.transportSecret(shuffleSecret.getEncoded(), jobId));
    Transport t;
    try {
      t = TransportSelector.standard()
          .start(new TransportContext(conf, secrets, localHost(), new TransportMetrics()));
    } catch (TransportStartException e) {
      if (!conf.get(MapReduceConfig.FETCH_HTTP_FALLBACK)) {
        throw e;
      }
      return new ReadSide(conf, jobId, null, e.getMessage(), client, fetchers, reporter);
    }
    return new ReadSide(conf, jobId, t, null, client, fetchers, reporter);
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
      LOG.warn("can't READ map outputs of {} and HTTP fallback is off ({}=false): {}",
          host.getHostName(), conf.keyOf(MapReduceConfig.FETCH_HTTP_FALLBACK), why);
      return false;
    }
    if (httpHosts.add(host.getHostName())) {
      count(RdmaShuffleCounter.FALLBACK_NODES, 1);
      LOG.warn("fetching map outputs of {} over the stock HTTP shuffle: {}", host.getHostName(), why);
    }
    return true;
  }

  void count(RdmaShuffleCounter c, long n) {
    reporter.getCounter(c).increment(n);
  }

  TransportMetrics metrics() {
    return transport == null ? null : transport.metrics();
  }

  @Override
  public void close() {
    if (connections != null) {
      connections.close();
    }
    if (buffers != null) {
      buffers.close();
    }
    if (transport != null) {
      transport.close();
    }
  }

  private static String localHost() {
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
