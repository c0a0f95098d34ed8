/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.mapoutput.LocateAnswer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.util.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fetcher thread of a reduce task, in the stock fetcher's loop: take a host from the shuffle
 * scheduler, copy the map outputs it has for this task, give it back. A round asks the node's
 * service where the outputs lie ({@link NodeLocator}), READs each segment ({@link MapOutputCopier},
 * {@link SegmentInputStream}) into the space Hadoop's merge reserves for it, and reports to the
 * scheduler exactly as Hadoop's {@code Fetcher} does ({@link FetchRound}): a map leaves the round
 * only when copied; a failed one is reported ({@code copyFailed}, which tells the AM when the stock
 * fetcher would) and put back with the rest, the host's failure counted once per round. Whose fault
 * a failure is decides what happens:
 *
 * <ul>
 *   <li>bad bytes (checksum, decompression) or a map the node can't serve: the map's;
 *   <li>a node that is busy (429): penalized and asked again later, as Hadoop does;
 *   <li>a node that can't be reached while Hadoop's fetch retry is on (a NodeManager restarting,
 *       {@link FetchRetry}): tried again every retry interval until the retry timeout, then as the
 *       next;
 *   <li>a node that can't serve READs (no service, refused, a different transport): fetched over
 *       HTTP from now on ({@code fetch.httpFallback}), else a connect failure of its maps;
 *   <li>READs of one map that fail in the transport, or a map the node can't register now: that map
 *       over HTTP this round (with fallback on), READs again next round;
 *   <li>this task's own shortage of READ buffers, its own side of a READ connection that could not
 *       be set up, or an interrupt: {@code reportLocalError}, never a failure of the map.
 * </ul>
 *
 * <p>Runs as the task's user ({@link TaskUserThread}). Owned by {@link RdmaShuffleConsumer}.
 */
final class RdmaFetcher<K, V> extends TaskUserThread {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaFetcher.class);

  private final int id;
  private final ReadSide side;
  private final ShuffleSchedulerImpl<K, V> scheduler;
  private final MergeManager<K, V> merger;
  private final ShuffleClientMetrics metrics;
  private final ExceptionReporter errors;
  private final HttpFallback http;
  private final MapOutputCopier<K, V> copier;
  private volatile boolean stopped;

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
    this.errors = errors;
    this.http = http;
    this.copier =
        new MapOutputCopier<>(id, side, scheduler, merger, metrics, reporter, () -> stopped);
  }

  @Override
  protected void work() {
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

  /** Stops the thread: its HTTP connection is closed first, so a blocked read ends at once. */
  void shutDown() throws InterruptedException {
    stopped = true;
    interrupt();
    http.abortConnection();
    join(5000);
    http.shutDown();
  }

  /** One round from {@code host}, which this thread holds until it returns. */
  void copyFromHost(MapHost host) throws IOException {
    if (side.usesHttp(host)) {
      viaHttp(host);
      return;
    }
    List<TaskAttemptID> maps = scheduler.getMapsForHost(host);
    if (maps.isEmpty()) {
      return;
    }
    FetchRound round = new FetchRound(scheduler, host, maps);
    try {
      copy(round, maps, true);
    } finally {
      round.putBack();
    }
    if (round.overHttp()) {
      viaHttp(host);
    }
  }

  /** Copies what it can of {@code maps}, all of {@code round}. */
  private void copy(FetchRound round, List<TaskAttemptID> maps, boolean mayAskAgain)
      throws IOException {
    MapHost host = round.host();
    LocateAnswer answer;
    long asked = Time.monotonicNow();
    try {
      side.count(RdmaShuffleCounter.MAP_OUTPUTS_REQUESTS, 1);
      answer = side.client.request(host, maps);
    } catch (NodeLocator.TryLater e) {
      LOG.info("fetcher#{}: {}; trying again in {} ms", id, e.getMessage(), e.backoffMillis());
      SchedulerPenalty.penalize(scheduler, host, e.backoffMillis());
      return;
    } catch (NodeLocator.Unusable e) {
      if (!(e.unreachable() && side.tryAgainLater(scheduler, host, e.getMessage()))) {
        unusable(round, maps, e.getMessage());
      }
      return;
    } finally {
      side.count(RdmaShuffleCounter.MAP_OUTPUTS_REQUEST_MILLIS, Time.monotonicNow() - asked);
    }
    if (answer.transport() != side.transport.kind()) {
      unusable(
          round,
          maps,
          "the node serves READs over "
              + answer.transport()
              + ", this task runs "
              + side.transport.kind());
      return;
    }
    List<TaskAttemptID> askAgain = new ArrayList<>();
    List<TaskAttemptID> deferred = new ArrayList<>();
    List<TaskAttemptID> later = new ArrayList<>();
    for (LocateAnswer.Located e : answer.maps()) {
      TaskAttemptID mapId = round.map(e.map());
      MapOutputCopier.Outcome o = copier.copy(round, answer, e, mapId);
      switch (o) {
        case DONE -> round.copied(mapId);
        case FAILED -> {}
        case STOP -> {
          return;
        }
        case USE_HTTP -> round.useHttp();
        case ASK_AGAIN -> askAgain.add(mapId);
        case DEFERRED -> deferred.add(mapId);
        case LATER -> later.add(mapId);
      }
    }
    if (!later.isEmpty()) {
      // nobody's fault and no reason for HTTP: the maps stay in the round (put back at its end)
      // and the host is left alone for the retry interval, as a node answering 429 is
      LOG.info(
          "fetcher#{}: {} is busy with {} of its map outputs; asking again in {} ms",
          id,
          host.getHostName(),
          later.size(),
          side.retry.intervalMillis());
      SchedulerPenalty.penalize(scheduler, host, side.retry.intervalMillis());
    }
    if (deferred.size() == answer.maps().size()) {
      // the node's answers can't hold even one map's partition: its bound is misconfigured
      unusable(round, deferred, "the node's locate answers are too small for one map output");
      return;
    }
    if (!deferred.isEmpty()) {
      // the node answered as many as its answer holds (call.maxAnswerBytes): the rest now
      copy(round, deferred, mayAskAgain);
    }
    if (askAgain.isEmpty()) {
      return;
    }
    if (mayAskAgain) {
      side.count(RdmaShuffleCounter.ASKED_AGAIN, askAgain.size());
      copy(round, askAgain, false);
    } else if (side.httpFallback) {
      // deregistered twice in one round: a node under registration pressure; HTTP serves them
      round.useHttp();
    }
  }

  /**
   * The node can't serve READs: HTTP from now on if allowed, else what the stock shuffle reports
   * when it can't connect.
   */
  private void unusable(FetchRound round, List<TaskAttemptID> maps, String why) {
    if (side.fallBack(round.host(), why)) {
      round.useHttp();
      return;
    }
    for (TaskAttemptID m : maps) {
      round.failed(m, false, true);
    }
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
