/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

/**
 * How one reduce task fetches.
 *
 * @param maxBytesInFlight bytes of READs admitted and not yet ended: the task's window (Spark's
 *     {@code spark.reducer.maxSizeInFlight})
 * @param maxRequestsInFlight READs admitted and not yet ended (Spark's {@code maxReqsInFlight})
 * @param segmentSize largest single READ of block data
 * @param readLocal read map outputs on this host from their files
 * @param verify check every block's checksum
 * @param allocationWaitMillis how long to wait for a READ buffer before failing the task
 * @param maxRetries how often a failed READ or locate call is tried again
 * @param retryWaitMillis how long before each retry
 */
public record FetchOptions(
    long maxBytesInFlight,
    int maxRequestsInFlight,
    int segmentSize,
    boolean readLocal,
    boolean verify,
    long allocationWaitMillis,
    int maxRetries,
    long retryWaitMillis) {

  /**
   * How long a reader waits for an owner that answers "busy" or keeps withdrawing what it READs
   * before it gives up: twice the longer of the buffer wait and the retries' total wait.
   */
  long patienceMillis() {
    return 2 * Math.max(allocationWaitMillis, (maxRetries + 1L) * retryWaitMillis);
  }

  /**
   * The bounds of a task's segment fetcher: the window is {@code maxBytesInFlight}; the consumer
   * may hold as much again (arrived blocks waiting for it, blocks it reads); while several owners
   * have READs waiting, each gets at most a fifth of the window (a segment at least).
   */
  SegmentLimits limits() {
    return new SegmentLimits(
        maxBytesInFlight,
        2 * maxBytesInFlight,
        maxRequestsInFlight,
        Math.max(segmentSize, maxBytesInFlight / 5),
        allocationWaitMillis,
        maxRetries,
        retryWaitMillis);
  }
}
