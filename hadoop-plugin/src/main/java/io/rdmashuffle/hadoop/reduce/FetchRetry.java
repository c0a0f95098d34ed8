/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.util.Time;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hadoop's fetch retry for a NodeManager that restarts (work-preserving, its map outputs still on
 * disk): a node that can't be reached is tried again every {@code
 * mapreduce.reduce.shuffle.fetch.retry.interval-ms} until {@code ...fetch.retry.timeout-ms} have
 * passed since it was first found unreachable, without reporting its maps as failed; only then is
 * it treated as an unreachable node. On with {@code mapreduce.reduce.shuffle.fetch.retry.enabled},
 * which defaults, as in Hadoop's Fetcher, to {@code yarn.nodemanager.recovery.enabled}. A copied
 * map output is progress and starts the clock afresh, as the stock fetcher resets it. Shared by a
 * task's fetcher threads.
 */
final class FetchRetry {
  private static final Logger LOG = LoggerFactory.getLogger(FetchRetry.class);

  /** Hadoop's Fetcher.DEFAULT_STALLED_COPY_TIMEOUT, its default retry timeout. */
  static final int DEFAULT_TIMEOUT_MILLIS = 3 * 60 * 1000;

  private final boolean enabled;
  private final long intervalMillis;
  private final long timeoutMillis;

  /** Since when each unreachable node (by host name) has been tried again. */
  private final Map<String, Long> unreachableSince = new ConcurrentHashMap<>();

  FetchRetry(boolean enabled, long intervalMillis, long timeoutMillis) {
    this.enabled = enabled;
    this.intervalMillis = intervalMillis;
    this.timeoutMillis = timeoutMillis;
  }

  /** The job's settings, read as Hadoop's Fetcher reads them. */
  static FetchRetry of(Configuration job) {
    boolean recovery =
        job.getBoolean(
            YarnConfiguration.NM_RECOVERY_ENABLED, YarnConfiguration.DEFAULT_NM_RECOVERY_ENABLED);
    return new FetchRetry(
        job.getBoolean(MRJobConfig.SHUFFLE_FETCH_RETRY_ENABLED, recovery),
        job.getInt(
            MRJobConfig.SHUFFLE_FETCH_RETRY_INTERVAL_MS,
            MRJobConfig.DEFAULT_SHUFFLE_FETCH_RETRY_INTERVAL_MS),
        job.getInt(MRJobConfig.SHUFFLE_FETCH_RETRY_TIMEOUT_MS, DEFAULT_TIMEOUT_MILLIS));
  }

  boolean enabled() {
    return enabled;
  }

  long intervalMillis() {
    return intervalMillis;
  }

  /**
   * {@code host} could not be reached now.
   *
   * @return true to try it again after {@link #intervalMillis()}, nobody's failure; false when
   *     retry is off or its timeout has passed (the clock then starts afresh at the next failure)
   */
  boolean tryAgain(MapHost host) {
    if (!enabled) {
      return false;
    }
    long now = Time.monotonicNow();
    long since = unreachableSince.computeIfAbsent(host.getHostName(), h -> now);
    if (now - since < timeoutMillis) {
      return true;
    }
    unreachableSince.remove(host.getHostName());
    return false;
  }

  /**
   * {@code host} can't be reached: while retry allows, it is penalized in {@code scheduler} for the
   * interval (its maps go back unreported; it is not fetched over HTTP) and tried again then.
   *
   * @return false when retry is off or has timed out: the caller treats the node as unreachable
   */
  boolean tryAgainLater(ShuffleSchedulerImpl<?, ?> scheduler, MapHost host, String why) {
    if (!tryAgain(host)) {
      return false;
    }
    LOG.info(
        "{} can't be reached ({}); trying again in {} ms (NodeManager restart retry)",
        host.getHostName(),
        why,
        intervalMillis);
    SchedulerPenalty.penalize(scheduler, host, intervalMillis);
    return true;
  }

  /** A map output was copied from {@code host}: it is reachable. */
  void progress(MapHost host) {
    if (enabled) {
      unreachableSince.remove(host.getHostName());
    }
  }
}
