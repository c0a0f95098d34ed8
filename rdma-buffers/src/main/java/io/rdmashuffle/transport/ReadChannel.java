/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * An authenticated connection to one peer, on which READs of the peer's registered regions are
 * posted. Thread-safe: any thread may post. Completions arrive on a transport thread through each
 * READ's {@link ReadListener}.
 *
 * <p>Bounds: at most {@code read.maxOutstandingRequests} READs and {@code read.maxOutstandingBytes}
 * bytes are in flight (a single READ larger than the byte bound is accepted when nothing else is in
 * flight). {@link #tryPost} refuses beyond them (back-pressure as a return value); {@link #post}
 * queues beyond them and issues in order as READs complete.
 *
 * <p>When the connection breaks, every READ in flight or queued fails (typed, with this peer) and
 * the channel stays closed; ask the {@link ConnectionPool} (or {@link Transport#connect}) for a
 * fresh one.
 */
public interface ReadChannel extends AutoCloseable {
  PeerAddress peer();

  /** The application this connection proved. */
  String application();

  boolean isOpen();

  /** Issues the READ now, or returns false without side effect when a bound is reached. */
  boolean tryPost(ReadOp op);

  /**
   * Issues the READ now, or queues it until in-flight READs complete. On a closed channel the
   * listener is called at once with {@link ConnectionLostException}.
   */
  void post(ReadOp op);

  /**
   * Posts many READs with one doorbell where the transport can (one write, one work-request list
   * with only the last one signalled): {@link #post} for each, in order.
   */
  void postAll(List<ReadOp> ops);

  /**
   * For a thread about to block until READs of this channel end (its listeners make {@code ready}
   * hold): lets it find completions itself, for at most {@code maxNanos} and the transport's own
   * bound, instead of waiting for a transport thread to find them and wake it. Returns whether
   * {@code ready} holds; when not, the caller blocks as it would have. Listeners it runs may be
   * other threads' READs'. The default helps nothing and returns at once (tcp: completions arrive
   * on its I/O threads).
   */
  default boolean helpUntil(BooleanSupplier ready, long maxNanos) {
    return ready.getAsBoolean();
  }

  /** READs issued and not yet completed. */
  int inFlight();

  /** Closes the connection; READs still in flight or queued fail as connection lost. */
  @Override
  void close();
}
