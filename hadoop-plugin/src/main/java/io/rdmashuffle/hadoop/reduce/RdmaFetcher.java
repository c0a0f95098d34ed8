package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.RemoteAccessException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.util.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fetcher thread of a reduce task, in the stock fetcher's loop: take a host from the shuffle
 * scheduler, copy the map outputs it has for this task, give it back. A round asks the node's
 * service where the outputs lie ({@link NodeLocator}), READs each segment ({@link
 * SegmentInputStream}) into the space Hadoop's merge reserves for it, and reports each map to the
 * scheduler as the stock fetcher does: copied, failed (a read error, so the map is re-run when
 * reducers keep failing on it), or put back for later. Nodes that can't serve READs are fetched
 * over HTTP by Hadoop's own fetcher ({@link HttpFallbackFetcher}). Owned by {@link
 * RdmaShuffleConsumer}.
 */
final class RdmaFetcher<K, V> extends Thread {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaFetcher.class);

  private final int id;
  private final ReadSide side;
  private final ShuffleSchedulerImpl<K, V> scheduler;
  private final MergeManager<K, V> merger;
  private final ShuffleClientMetrics metrics;
  private final Reporter reporter;
  private final ExceptionReporter errors;
  private final HttpFallback http;
  private volatile boolean stopped;

  /** How one map's copy ended. */
  private enum Outcome {
    /** Copied and committed to the merge. */
    DONE,
    /** Reported to the scheduler as failed. */
    FAILED,
    /** The merge has no room now: put back, try later (not an error). */
    WAIT,
    /** The node can't serve READs: fetch over HTTP. */
    USE_HTTP,
    /** The node deregistered it meanwhile: ask again. */
    ASK_AGAIN
  }

  RdmaFetcher(
      int id,
      ReadSide side,
      ShuffleSchedulerImpl<K, V> scheduler,
      MergeManager<K, V> merger,
      ShuffleClientMetrics metrics,
      Reporter reporter,
      ExceptionReporter errors,
      HttpFallback http) {
    super("rdma-shuffle fetcher#" + id);
    setDaemon(true);
    this.id = id;
    this.side = side;
    this.scheduler = scheduler;
    this.merger = merger;
    this.metrics = metrics;
    this.reporter = reporter;
    this.errors = errors;
    this.http = http;
  }

  @Override
  public void run() {
    try {
      while (!stopped && !isInterrupted()) {
        MapHost host = null;
        try {
          merger.waitForResource();
          host = scheduler.getHost();
          metrics.threadBusy();
          copyFromHost(host);
        } finally {
          if (host != null) {
            scheduler.freeHost(host);
            metrics.threadFree();
          }
        }
      }
    } catch (InterruptedException e) {
      // shutDown
    } catch (Throwable t) {
      errors.reportException(t);
    }
  }

  void shutDown() throws InterruptedException {
    stopped = true;
    interrupt();
    join(5000);
    http.shutDown();
  }

  /** One round from {@code host}, which this thread holds until it returns. */
  void copyFromHost(MapHost host) throws IOException, InterruptedException {
    if (side.usesHttp(host)) {
      viaHttp(host);
      return;
    }
    List<TaskAttemptID> maps = scheduler.getMapsForHost(host);
    if (maps.isEmpty()) {
      return;
    }
    Set<TaskAttemptID> remaining = new LinkedHashSet<>(maps);
    List<TaskAttemptID> httpMaps = new ArrayList<>();
    boolean wholeHostOverHttp = false;
    try {
      wholeHostOverHttp = copy(host, remaining, httpMaps, true);
    } finally {
      for (TaskAttemptID m : remaining) {
        scheduler.putBackKnownMapOutput(host, m);
      }
      for (TaskAttemptID m : httpMaps) {
        scheduler.putBackKnownMapOutput(host, m);
      }
    }
    if (wholeHostOverHttp || !httpMaps.isEmpty()) {
      viaHttp(host);
    }
  }

  /**
   * Copies what it can of {@code remaining}, removing each map it settled (copied or reported).
   *
   * @return whether the rest must come over HTTP
   */
  private boolean copy(MapHost host, Set<TaskAttemptID> remaining, List<TaskAttemptID> httpMaps,
      boolean mayAskAgain) throws IOException, InterruptedException {
    LocateAnswer answer;
    long asked = Time.monotonicNow();
    try {
      side.count(RdmaShuffleCounter.MAP_OUTPUTS_REQUESTS, 1);
      answer = side.client.request(host, new ArrayList<>(remaining));
    } catch (NodeLocator.Unusable e) {
      return unusable(host, remaining, e.getMessage());
    } finally {
      side.count(RdmaShuffleCounter.MAP_OUTPUTS_REQUEST_MILLIS, Time.monotonicNow() - asked);
    }
    if (answer.transport() != side.transport.kind()) {
      return unusable(host, remaining, "the node serves READs over " + answer.transport()
          + ", this task runs " + side.transport.kind());
    }
    List<TaskAttemptID> askAgain = new ArrayList<>();
    for (LocateAnswer.Located e : answer.maps()) {
      TaskAttemptID mapId = TaskAttemptID.forName(e.map());
      Outcome o = copyOne(host, answer, e, mapId);
      switch (o) {
        case DONE, FAILED -> remaining.remove(mapId);
        case WAIT -> {
          return false;
        }
        case USE_HTTP -> {
          if (e.status() == LocateAnswer.Status.UNAVAILABLE) {
            remaining.remove(mapId);
            httpMaps.add(mapId);
          } else {
            return unusable(host, remaining, "READs from the node fail");
          }
        }
        case ASK_AGAIN -> askAgain.add(mapId);
      }
    }
    if (!askAgain.isEmpty() && mayAskAgain) {
      side.count(RdmaShuffleCounter.ASKED_AGAIN, askAgain.size());
      Set<TaskAttemptID> again = new LinkedHashSet<>(askAgain);
      boolean overHttp = copy(host, again, httpMaps, false);
      remaining.removeAll(askAgain);
      remaining.addAll(again);
      return overHttp;
    }
    for (TaskAttemptID m : askAgain) {
      // deregistered twice in one round: a node under registration pressure; HTTP serves it
      remaining.remove(m);
      httpMaps.add(m);
    }
    return false;
  }

  /** The node can't serve READs: HTTP if allowed, else the stock shuffle's connect failure. */
  private boolean unusable(MapHost host, Set<TaskAttemptID> remaining, String why) {
    if (side.fallBack(host, why)) {
      return true;
    }
    scheduler.hostFailed(host.getHostName());
    for (TaskAttemptID m : remaining) {
      scheduler.copyFailed(m, host, false, true);
    }
    remaining.clear();
    return false;
  }

  private Outcome copyOne(MapHost host, LocateAnswer answer, LocateAnswer.Located e,
      TaskAttemptID mapId) throws IOException {
    switch (e.status()) {
      case OK:
        return read(host, answer, e, mapId);
      case UNAVAILABLE:
        return Outcome.USE_HTTP;
      default:
        // the node has no usable output for it: what the stock shuffle reports when the node
        // answers its request with an error (a failure of this map on this host, not a read error)
        LOG.warn("fetcher#{}: {} can't serve {}: {} {}", id, host.getHostName(), mapId, e.status(),
            e.message());
        scheduler.hostFailed(host.getHostName());
        scheduler.copyFailed(mapId, host, false, false);
        return Outcome.FAILED;
    }
  }

  private Outcome read(MapHost host, LocateAnswer answer, LocateAnswer.Located e,
      TaskAttemptID mapId) throws IOException {
    long start = Time.monotonicNow();
    PartitionTable t = e.partitions();
    long offset = t.start(side.reduce);
    long length = t.length(side.reduce);
    long rawLength = t.rawLength(side.reduce);
    MapOutput<K, V> out;
    try {
      out = merger.reserve(mapId, rawLength, id);
    } catch (IOException ex) {
      // no local room for it: the stock fetcher kills the reduce attempt the same way
      scheduler.reportLocalError(ex);
      return Outcome.WAIT;
    }
    if (out == null) {
      return Outcome.WAIT;
    }
    SegmentInputStream in = new SegmentInputStream(side.connections, side.buffers,
        answer.responder(), side.jobId, e.data(), offset, length, side.chunkSize,
        side.bytesInFlightPerFetcher, side.allocationWaitMillis, reporter);
    try {
      out.shuffle(host, in, length, rawLength, metrics, reporter);
    } catch (IOException | InternalError | RuntimeException ex) {
      // codecs report corrupt input as InternalError, as the stock fetcher notes
      out.abort();
      return failed(host, mapId, in.failure(), ex);
    } finally {
      in.close();
    }
    long end = Time.monotonicNow();
    scheduler.copySucceeded(mapId, host, length, start, end, out);
    metrics.successFetch();
    side.count(RdmaShuffleCounter.MAPS_READ, 1);
    side.count(RdmaShuffleCounter.BYTES_READ, length);
    side.count(RdmaShuffleCounter.READ_COPY_MILLIS, end - start);
    return Outcome.DONE;
  }

  private Outcome failed(MapHost host, TaskAttemptID mapId, SegmentInputStream.ReadFailure rf,
      Throwable ex) {
    metrics.failedFetch();
    if (rf != null) {
      IOException why = rf.reason();
      if (why instanceof RemoteAccessException) {
        // deregistered meanwhile (registration pressure, a restarted service): a fresh answer
        // has fresh descriptors
        LOG.info("fetcher#{}: {} refused READs of {} ({}); asking again", id, host.getHostName(),
            mapId, ((RemoteAccessException) why).reason());
        return Outcome.ASK_AGAIN;
      }
      if (side.httpFallback) {
        LOG.warn("fetcher#{}: READs of {} from {} failed", id, mapId, host.getHostName(), rf);
        return Outcome.USE_HTTP;
      }
      if (why instanceof PeerUnreachableException || why instanceof AuthenticationException) {
        // fallback off: what the stock shuffle reports when it can't connect
        LOG.warn("fetcher#{}: can't reach {} for READs of {}", id, host.getHostName(), mapId, rf);
        scheduler.hostFailed(host.getHostName());
        scheduler.copyFailed(mapId, host, false, true);
        return Outcome.FAILED;
      }
    }
    // bad bytes (checksum, decompression) or READs that keep failing: a read error, as the stock
    // fetcher reports one
    LOG.warn("fetcher#{}: failed to copy {} from {}", id, mapId, host.getHostName(), ex);
    side.count(RdmaShuffleCounter.READ_FAILURES, 1);
    scheduler.hostFailed(host.getHostName());
    scheduler.copyFailed(mapId, host, true, false);
    return Outcome.FAILED;
  }

  private void viaHttp(MapHost host) throws IOException {
    side.count(RdmaShuffleCounter.FALLBACK_FETCHES, 1);
    http.copyFrom(host);
  }

  @Override
  public String toString() {
    return getName() + " (" + side.conf.keyOf(RdmaShuffleConfig.TRANSPORT) + ")";
  }
}
