/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import java.io.IOException;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.Fetcher;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;

/**
 * Hadoop's own HTTP fetcher, driven by one of our fetcher threads for the hosts that must be
 * fetched over the stock shuffle: its thread is never started; {@link #copyFrom} runs one round of
 * the stock fetch (connect, verify, copy into the merge, report failures to the scheduler exactly
 * as the stock shuffle does) on the caller's thread. Uses {@code Fetcher.copyFromHost}, protected
 * and unchanged from Hadoop 2.x to 3.5.0 (where Fetcher extends SubjectInheritingThread instead of
 * Thread; a never-started instance doesn't care).
 */
final class HttpFallbackFetcher<K, V> extends Fetcher<K, V> implements HttpFallback {
  HttpFallbackFetcher(
      JobConf job,
      TaskAttemptID reduceId,
      ShuffleSchedulerImpl<K, V> scheduler,
      MergeManager<K, V> merger,
      Reporter reporter,
      ShuffleClientMetrics metrics,
      ExceptionReporter exceptionReporter,
      SecretKey shuffleKey) {
    super(job, reduceId, scheduler, merger, reporter, metrics, exceptionReporter, shuffleKey);
  }

  /** One stock fetch round from {@code host}, which the caller holds (got from getHost). */
  @Override
  public void copyFrom(MapHost host) throws IOException {
    copyFromHost(host);
  }

  /** Closes the HTTP connection of a round in progress, which fails its blocked read. */
  @Override
  public void abortConnection() {
    closeConnection();
  }
}
