/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What every transport's {@link ReadChannel} shares: the bounds on READs in flight (count and
 * bytes; a single READ larger than the byte bound is admitted alone), the queue of READs waiting
 * beyond them, and the rules for posting on a channel that has ended. A transport supplies how an
 * admitted READ is issued ({@link #issue}, under {@link #state}) and what rings the doorbell
 * afterwards ({@link #afterIssue}, outside it), and calls {@link #releaseLocked} as READs end.
 *
 * <p>Every posted READ's target region is retained until its listener is called, so the memory a
 * READ writes into is never freed under it.
 */
public abstract class BoundedReadChannel implements ReadChannel {
  protected final PeerAddress peer;
  protected final String application;
  private final int maxRequests;
  private final long maxBytes;

  /** Guards the bounds, the waiting queue, the closing state and the subclass's issue state. */
  protected final ReentrantLock state = new ReentrantLock();

  private final ArrayDeque<ReadOp> waiting = new ArrayDeque<>();
  private int inFlight;
  private long inFlightBytes;

  /** Why the channel is (being) closed; null while open. */
  private TransportException closing;

  /** Set when the transport failed every READ of the channel; posts then fail at once. */
  private boolean ended;

  protected BoundedReadChannel(
      PeerAddress peer, String application, int maxRequests, long maxBytes) {
    this.peer = peer;
    this.application = application;
    this.maxRequests = maxRequests;
    this.maxBytes = maxBytes;
  }

  /** Under {@link #state}: the READ is within the bounds; hand it to the transport. */
  protected abstract void issue(ReadOp op);

  /** Outside {@link #state}, after READs were issued: ring the doorbell. */
  protected abstract void afterIssue();

  /** Tells a READ's listener it failed (counting it); any thread. */
  protected abstract void fail(ReadOp op, TransportException e);

  @Override
  public final PeerAddress peer() {
    return peer;
  }

  @Override
  public final String application() {
    return application;
  }

  @Override
  public final boolean isOpen() {
    state.lock();
    try {
      return closing == null && !ended;
    } finally {
      state.unlock();
    }
  }

  @Override
  public final int inFlight() {
    state.lock();
    try {
      return inFlight;
    } finally {
      state.unlock();
    }
  }

  @Override
  public final boolean tryPost(ReadOp op) {
    retainTarget(op);
    TransportException endedBy;
    state.lock();
    try {
      endedBy = endedByLocked();
      if (endedBy == null) {
        if (!waiting.isEmpty() || !hasRoom(op.length())) {
          op.target().release();
          return false;
        }
        admit(op);
      }
    } finally {
      state.unlock();
    }
    afterPost(op, endedBy);
    return true;
  }

  @Override
  public final void post(ReadOp op) {
    retainTarget(op);
    TransportException endedBy;
    state.lock();
    try {
      endedBy = endedByLocked();
      if (endedBy == null) {
        enqueue(op);
      }
    } finally {
      state.unlock();
    }
    afterPost(op, endedBy);
  }

  @Override
  public final void postAll(List<ReadOp> ops) {
    int n = ops.size();
    for (int i = 0; i < n; i++) {
      try {
        retainTarget(ops.get(i));
      } catch (IllegalStateException e) {
        // the batch is refused whole: give back what it took
        for (int k = 0; k < i; k++) {
          ops.get(k).target().release();
        }
        throw e;
      }
    }
    TransportException endedBy;
    state.lock();
    try {
      endedBy = endedByLocked();
      if (endedBy == null) {
        for (int i = 0; i < n; i++) {
          enqueue(ops.get(i));
        }
      }
    } finally {
      state.unlock();
    }
    if (endedBy == null) {
      afterIssue();
      return;
    }
    for (int i = 0; i < n; i++) {
      failEnded(ops.get(i), endedBy);
    }
  }

  /** Outside {@link #state}, after one post: ring the doorbell, or fail the READ if it ended. */
  private void afterPost(ReadOp op, TransportException endedBy) {
    if (endedBy == null) {
      afterIssue();
    } else {
      failEnded(op, endedBy);
    }
  }

  /** Under {@link #state}: why posts now fail at once, or null while READs may be posted. */
  private TransportException endedByLocked() {
    return ended ? closing : null;
  }

  private static void retainTarget(ReadOp op) {
    if (op.target() == null || !op.target().tryRetain()) {
      throw new IllegalStateException("READ target region is not open: " + op);
    }
  }

  private void failEnded(ReadOp op, TransportException cause) {
    op.target().release();
    fail(op, new ConnectionLostException("connection is closed", peer, op, cause));
  }

  private void enqueue(ReadOp op) {
    if (waiting.isEmpty() && hasRoom(op.length())) {
      admit(op);
    } else {
      waiting.addLast(op);
    }
  }

  private boolean hasRoom(int length) {
    return inFlight < maxRequests && (inFlightBytes + length <= maxBytes || inFlight == 0);
  }

  private void admit(ReadOp op) {
    inFlight++;
    inFlightBytes += op.length();
    issue(op);
  }

  /**
   * Under {@link #state}: {@code count} READs of {@code bytes} ended; admits waiting READs into the
   * room they left (unless the channel is closing). Returns whether any was admitted.
   */
  protected final boolean releaseLocked(int count, long bytes) {
    inFlight -= count;
    inFlightBytes -= bytes;
    boolean admitted = false;
    while (!waiting.isEmpty() && closing == null && hasRoom(waiting.peekFirst().length())) {
      admit(waiting.pollFirst());
      admitted = true;
    }
    return admitted;
  }

  /** Under {@link #state}: records why the channel closes; the first cause wins. */
  protected final boolean closeLocked(TransportException cause) {
    if (closing != null) {
      return false;
    }
    closing = cause;
    return true;
  }

  /** Under {@link #state}: why the channel closes, or null while it is open. */
  protected final TransportException closingLocked() {
    return closing;
  }

  /** Why the channel closes, or null while it is open. */
  protected final TransportException closingCause() {
    state.lock();
    try {
      return closing;
    } finally {
      state.unlock();
    }
  }

  /**
   * Under {@link #state}: the channel ended; from now on posts fail at once. Returns the READs that
   * were waiting beyond the bounds (never issued), for the caller to fail; the caller fails what it
   * issued itself.
   */
  protected final List<ReadOp> endLocked() {
    ended = true;
    List<ReadOp> never = new ArrayList<>(waiting);
    waiting.clear();
    inFlight = 0;
    inFlightBytes = 0;
    return never;
  }
}
