/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.RemoteAccessException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.util.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies, for one {@link RdmaFetcher}, one map output its node's answer located: reserves the space
 * Hadoop's merge keeps for it, READs its segment into it ({@link SegmentInputStream}) and commits
 * it to the scheduler; or tells by the answer's status, or by what failed, whose fault it is and
 * what the fetcher's round does next ({@link Outcome}).
 */
final class MapOutputCopier<K, V> {
  // logged under the fetcher's name, as before this class was split out of it
  private static final Logger LOG = LoggerFactory.getLogger(RdmaFetcher.class);

  private final int id;
  private final ReadSide side;
  private final ShuffleSchedulerImpl<K, V> scheduler;
  private final MergeManager<K, V> merger;
  private final ShuffleClientMetrics metrics;
  private final Reporter reporter;

  /** Whether the fetcher is being shut down (an interrupt then is nobody's error). */
  private final BooleanSupplier stopped;

  /** How one map's copy ended. */
  enum Outcome {
    /** Copied and committed to the merge. */
    DONE,
    /** Reported to the scheduler as failed; put back with the round's rest. */
    FAILED,
    /** Not copied, nobody's fault here (no room in the merge now, or reported as local): stop. */
    STOP,
    /** This map over HTTP this round (its READs failed in the transport). */
    USE_HTTP,
    /** The node is busy with it (leased, or being registered): the next round, after a penalty. */
    LATER,
    /** The node deregistered it meanwhile: ask again. */
    ASK_AGAIN,
    /** Not answered in this call (the node's answer was full): ask again, nobody's fault. */
    DEFERRED
  }

  MapOutputCopier(
      int id,
      ReadSide side,
      ShuffleSchedulerImpl<K, V> scheduler,
      MergeManager<K, V> merger,
      ShuffleClientMetrics metrics,
      Reporter reporter,
      BooleanSupplier stopped) {
    this.id = id;
    this.side = side;
    this.scheduler = scheduler;
    this.merger = merger;
    this.metrics = metrics;
    this.reporter = reporter;
    this.stopped = stopped;
  }

  /** Copies {@code mapId}, located by {@code e} in {@code answer}, or says why not. */
  Outcome copy(FetchRound round, LocateAnswer answer, LocateAnswer.Located e, TaskAttemptID mapId)
      throws IOException {
    switch (e.status()) {
      case OK:
        return read(round, answer, e, mapId);
      case DEFERRED:
        return Outcome.DEFERRED;
      case BUSY:
        // every registration leased to readers still READing, or this output's registration
        // under way for another reducer: ask again later (never the map's fault, never HTTP)
        return Outcome.LATER;
      case UNAVAILABLE:
        // the node's own limits: not the map's fault
        if (side.httpFallback) {
          return Outcome.USE_HTTP;
        }
        LOG.warn(
            "fetcher#{}: {} can't register {} now and HTTP fallback is off: {}",
            id,
            round.host().getHostName(),
            mapId,
            e.message());
        round.failed(mapId, false, false);
        return Outcome.FAILED;
      default:
        // the node has no usable output for it: what the stock shuffle reports when the node
        // answers its request with an error (a failure of this map on this host, not a read error)
        LOG.warn(
            "fetcher#{}: {} can't serve {}: {} {}",
            id,
            round.host().getHostName(),
            mapId,
            e.status(),
            e.message());
        round.failed(mapId, false, false);
        return Outcome.FAILED;
    }
  }

  /**
   * @throws IOException when the merge can't take a copied map output (this task's problem)
   */
  private Outcome read(
      FetchRound round, LocateAnswer answer, LocateAnswer.Located e, TaskAttemptID mapId)
      throws IOException {
    MapHost host = round.host();
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
      return Outcome.STOP;
    }
    if (out == null) {
      return Outcome.STOP;
    }
    SegmentInputStream in =
        new SegmentInputStream(
            side.connections,
            side.buffers,
            answer.responder(),
            side.jobId,
            e.data(),
            offset,
            length,
            side.chunkSize,
            side.bytesInFlightPerFetcher,
            side.allocationWaitMillis,
            reporter);
    try {
      out.shuffle(host, in, length, rawLength, metrics, reporter);
    } catch (IOException | InternalError | RuntimeException ex) {
      // codecs report corrupt input as InternalError, as the stock fetcher notes
      out.abort();
      return failed(round, mapId, in.failure(), ex);
    } finally {
      in.close();
    }
    long end = Time.monotonicNow();
    scheduler.copySucceeded(mapId, host, length, start, end, out);
    side.retry.progress(host);
    metrics.successFetch();
    side.count(RdmaShuffleCounter.MAPS_READ, 1);
    side.count(RdmaShuffleCounter.BYTES_READ, length);
    side.count(RdmaShuffleCounter.READ_COPY_MILLIS, end - start);
    return Outcome.DONE;
  }

  private Outcome failed(
      FetchRound round, TaskAttemptID mapId, SegmentInputStream.ReadFailure rf, Throwable ex) {
    String hostName = round.host().getHostName();
    if (interrupted(ex)) {
      if (stopped.getAsBoolean()) {
        return Outcome.STOP;
      }
      scheduler.reportLocalError(new IOException("fetcher#" + id + " interrupted", ex));
      return Outcome.STOP;
    }
    if (rf != null && rf.ownSide()) {
      // this task's own shortage of READ buffers, or its own side of the connection that could
      // not be set up: the task's problem, never the map's
      scheduler.reportLocalError(rf);
      return Outcome.STOP;
    }
    if (rf != null) {
      IOException why = rf.reason();
      if (why instanceof RemoteAccessException rae) {
        // deregistered meanwhile (registration pressure, a restarted service): a fresh answer
        // has fresh descriptors
        LOG.info(
            "fetcher#{}: {} refused READs of {} ({}); asking again",
            id,
            hostName,
            mapId,
            rae.reason());
        return Outcome.ASK_AGAIN;
      }
      if (why instanceof PeerUnreachableException
          && side.tryAgainLater(scheduler, round.host(), why.toString())) {
        return Outcome.STOP;
      }
      metrics.failedFetch();
      if (side.httpFallback) {
        LOG.warn(
            "fetcher#{}: READs of {} from {} failed; HTTP this round", id, mapId, hostName, rf);
        side.count(RdmaShuffleCounter.READ_RETRIED_OVER_HTTP, 1);
        return Outcome.USE_HTTP;
      }
      // fallback off: what the stock shuffle reports when it can't connect, or a read error
      LOG.warn("fetcher#{}: READs of {} from {} failed", id, mapId, hostName, rf);
      boolean unreachable =
          why instanceof PeerUnreachableException || why instanceof AuthenticationException;
      round.failed(mapId, !unreachable, unreachable);
      return Outcome.FAILED;
    }
    // bad bytes (checksum, decompression): a read error, as the stock fetcher reports one
    metrics.failedFetch();
    LOG.warn("fetcher#{}: failed to copy {} from {}", id, mapId, hostName, ex);
    side.count(RdmaShuffleCounter.READ_FAILURES, 1);
    round.failed(mapId, true, false);
    return Outcome.FAILED;
  }

  private static boolean interrupted(Throwable ex) {
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (t instanceof InterruptedIOException
          || t instanceof ClosedByInterruptException
          || t instanceof InterruptedException) {
        return true;
      }
    }
    return Thread.currentThread().isInterrupted();
  }
}
