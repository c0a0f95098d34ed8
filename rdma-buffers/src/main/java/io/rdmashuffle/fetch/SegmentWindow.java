/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the admitted requests of one {@link SegmentFetcher} take of its {@link SegmentLimits} now:
 * the window (requests and bytes in flight, in all and per owner) and the bytes held until the
 * consumer releases them; and whether one more request fits. The consumer's thread, except {@link
 * #release} and {@link #bytesHeld}: any thread.
 */
final class SegmentWindow {
  private final SegmentLimits limits;
  private final AtomicLong bytesHeld = new AtomicLong();

  /** Requests admitted whose READs have not ended (waiting for a connection included). */
  private int requestsInFlight;

  private long bytesInFlight;

  SegmentWindow(SegmentLimits limits) {
    this.limits = limits;
  }

  /**
   * Whether {@code e}, the head of {@code q}, fits the bounds now, with {@code busyPeers} owners
   * having requests waiting.
   */
  boolean fits(SegmentRead e, SegmentAdmission.PeerQueue q, int busyPeers) {
    long len = e.request.length();
    return requestsInFlight < limits.maxRequests()
        && bytesInFlight + len <= limits.maxBytesInFlight()
        && bytesHeld.get() + len <= limits.maxBytesHeld()
        && (busyPeers <= 1
            || q.inFlightBytes == 0
            || q.inFlightBytes + len <= limits.maxBytesPerPeer());
  }

  /** Counts {@code e} in (sign 1) or out of (-1) the window and its owner's share. */
  void inFlight(SegmentRead e, int sign) {
    long len = e.request.length();
    requestsInFlight += sign;
    bytesInFlight += sign * len;
    e.queue.inFlightBytes += sign * len;
  }

  /** {@code bytes} were given a buffer: held until {@link #release}d. */
  void hold(long bytes) {
    bytesHeld.addAndGet(bytes);
  }

  /** {@code bytes} held were given back (released by the consumer, or dropped). Any thread. */
  void release(long bytes) {
    bytesHeld.addAndGet(-bytes);
  }

  int requestsInFlight() {
    return requestsInFlight;
  }

  long bytesInFlight() {
    return bytesInFlight;
  }

  long bytesHeld() {
    return bytesHeld.get();
  }
}
