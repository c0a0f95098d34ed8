/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

/**
 * How much one fetcher may hold and how hard it tries. Two budgets, kept apart: the window (bytes
 * on the wire: admitted and not yet arrived, as Spark's {@code spark.reducer.maxSizeInFlight}) and
 * what the consumer may hold (admitted and not yet released: arrived blocks waiting for it and
 * blocks it is reading), so a consumer that holds blocks never shrinks the window below its own
 * allowance. While more than one owner has READs waiting, each owner gets at most {@code
 * maxBytesPerPeer} of the window, so a task's READs are spread over its owners instead of queueing
 * at one (incast).
 *
 * @param maxBytesInFlight bytes admitted and not yet arrived (the window)
 * @param maxBytesHeld bytes admitted and not yet released by the consumer (at least the window)
 * @param maxRequests segments admitted and not yet arrived
 * @param maxBytesPerPeer bytes in flight to one owner while others wait too
 * @param allocationWaitMillis how long to wait for pool memory when holding nothing else
 * @param maxRetries how often a READ that failed in the transport is tried again
 * @param retryWaitMillis how long before each retry
 */
public record SegmentLimits(
    long maxBytesInFlight,
    long maxBytesHeld,
    int maxRequests,
    long maxBytesPerPeer,
    long allocationWaitMillis,
    int maxRetries,
    long retryWaitMillis) {
  public SegmentLimits {
    if (maxBytesInFlight <= 0
        || maxBytesHeld < maxBytesInFlight
        || maxRequests <= 0
        || maxBytesPerPeer <= 0
        || allocationWaitMillis < 0
        || maxRetries < 0
        || retryWaitMillis < 0) {
      throw new IllegalArgumentException(
          "maxBytesInFlight="
              + maxBytesInFlight
              + ", maxBytesHeld="
              + maxBytesHeld
              + ", maxRequests="
              + maxRequests
              + ", maxBytesPerPeer="
              + maxBytesPerPeer
              + ", allocationWaitMillis="
              + allocationWaitMillis
              + ", maxRetries="
              + maxRetries
              + ", retryWaitMillis="
              + retryWaitMillis
              + ": out of range");
    }
  }

  /**
   * One bound for everything: bytes in flight and held alike, no owner capped (a reader of one
   * owner, such as a MapReduce fetcher's stream).
   */
  public static SegmentLimits single(
      long maxBytes,
      int maxRequests,
      long allocationWaitMillis,
      int maxRetries,
      long retryWaitMillis) {
    return new SegmentLimits(
        maxBytes,
        maxBytes,
        maxRequests,
        maxBytes,
        allocationWaitMillis,
        maxRetries,
        retryWaitMillis);
  }
}
