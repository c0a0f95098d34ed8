/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import java.io.IOException;

/**
 * The send side of one reliable-connected queue pair, as the engine uses it. A doorbell is prepared
 * with {@link #setRead} for entries 0 to {@code count - 1} and rung with {@link #post}. Posting is
 * done under the owning channel's lock, so an implementation may reuse its work request objects;
 * nothing here may allocate per READ.
 */
public interface QueuePair {
  /** READs per doorbell at most. */
  int MAX_BATCH = 16;

  /** Fills entry {@code index} of the next doorbell with one RDMA READ. */
  void setRead(
      int index,
      long wrId,
      boolean signaled,
      long remoteAddress,
      int rkey,
      long localAddress,
      int length,
      int lkey);

  /** Posts entries 0 to {@code count - 1} with one doorbell. */
  void post(int count) throws IOException;

  /**
   * Destroys the queue pair. Returns true only when it is certainly gone, so the device writes
   * nothing more into the targets of its READs; false when the destroy failed, timed out or could
   * not be asked for (the queue pair may still be alive).
   */
  boolean destroy();

  /**
   * Moves the queue pair to the error state, after which the device completes every READ still
   * posted on it with a flush error and writes nothing more for them. Returns whether it did. Only
   * called after {@link #destroy} returned false.
   */
  boolean moveToError();
}
