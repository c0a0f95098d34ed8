package io.rdmashuffle.fetch;

/**
 * How much one fetcher may hold and how hard it tries.
 *
 * @param maxBytes bytes admitted and not yet released by the consumer
 * @param maxRequests segments admitted and not yet released
 * @param allocationWaitMillis how long to wait for pool memory when holding nothing else
 * @param maxRetries how often a READ that failed in the transport is tried again
 * @param retryWaitMillis how long before each retry
 */
public record SegmentLimits(
    long maxBytes,
    int maxRequests,
    long allocationWaitMillis,
    int maxRetries,
    long retryWaitMillis) {
  public SegmentLimits {
    if (maxBytes <= 0
        || maxRequests <= 0
        || allocationWaitMillis < 0
        || maxRetries < 0
        || retryWaitMillis < 0) {
      throw new IllegalArgumentException(
          "maxBytes="
              + maxBytes
              + ", maxRequests="
              + maxRequests
              + ", allocationWaitMillis="
              + allocationWaitMillis
              + ", maxRetries="
              + maxRetries
              + ", retryWaitMillis="
              + retryWaitMillis
              + ": out of range");
    }
  }
}
