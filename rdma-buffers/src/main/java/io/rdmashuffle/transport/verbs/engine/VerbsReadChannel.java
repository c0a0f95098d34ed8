/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.transport.BoundedReadChannel;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.engine.WorkRequestRing;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The reader's side of one RC queue pair. The thread that posts a READ also rings the doorbell,
 * under this channel's lock ({@link #state}): no hand-off to another thread on the way out. The
 * {@link VerbsAgent} finds the completions and ends READs, under the same lock; a reader about to
 * block for its READs may find them itself ({@link #helpUntil}).
 *
 * <p>Bounds: at most {@code depth} READs (the queue pair's send queue, what the device allowed at
 * creation) and {@code maxBytes} bytes are in flight; beyond them READs wait here ({@link #post})
 * or are refused ({@link #tryPost}).
 *
 * <p>Ending: the agent marks the channel broken (nothing more is posted), then asks the queue pair
 * to be destroyed. READ targets are released only once the queue pair can no longer write into
 * them: after a destroy that succeeded, or after the queue pair was moved to the error state and
 * flushed each READ; otherwise they are leaked on purpose (and counted).
 */
public final class VerbsReadChannel extends BoundedReadChannel {
  private final QueuePair qp;
  private final VerbsAgent agent;
  private final int depth;

  // ---- guarded by state
  private final WorkRequestRing ring;

  /** Admitted within the bounds, not yet posted. */
  private final ArrayDeque<ReadOp> admitted = new ArrayDeque<>();

  private boolean broken;

  /** A post failed: nothing more is posted; the agent breaks the channel. */
  private boolean postFailed;

  private int key = -1;

  // ---- agent thread only: the holder of the agent's poller lock
  /** In the agent's list of channels whose doorbell rings after the round. */
  boolean postQueued;

  boolean draining;
  long drainDeadline;
  TransportException brokenBy;

  public VerbsReadChannel(
      PeerAddress peer,
      String application,
      int depth,
      long maxBytes,
      QueuePair qp,
      VerbsAgent agent) {
    super(peer, application, depth, maxBytes);
    if (depth <= 0) {
      throw new IllegalArgumentException("depth=" + depth + ": must be positive");
    }
    this.qp = qp;
    this.agent = agent;
    this.depth = depth;
    this.ring = new WorkRequestRing(depth);
  }

  /** The send queue depth: READs in flight at most. */
  public int depth() {
    return depth;
  }

  QueuePair queuePair() {
    return qp;
  }

  void key(int k) {
    state.lock();
    try {
      key = k;
    } finally {
      state.unlock();
    }
  }

  int key() {
    state.lock();
    try {
      return key;
    } finally {
      state.unlock();
    }
  }

  @Override
  protected void issue(ReadOp op) {
    admitted.addLast(op);
  }

  @Override
  protected void afterIssue() {
    if (agent.onAgentThread()) {
      agent.postLater(this); // a listener posting: one doorbell for the round's posts
      return;
    }
    postNow();
  }

  /** Posts what is admitted now, under the lock; a failed post breaks the channel. */
  void postNow() {
    IOException failed;
    state.lock();
    try {
      failed = postAdmittedLocked();
    } finally {
      state.unlock();
    }
    if (failed != null) {
      agent.breakLater(this, postFailure(failed));
    }
  }

  /** Polls the completion queue itself while it waits (the agent's wait spin at most). */
  @Override
  public boolean helpUntil(BooleanSupplier ready, long maxNanos) {
    return agent.help(ready, maxNanos);
  }

  @Override
  protected void fail(ReadOp op, TransportException e) {
    agent.fail(op, e);
  }

  @Override
  public void close() {
    TransportException cause =
        new ConnectionLostException("connection closed locally", peer, null, null);
    state.lock();
    try {
      if (!closeLocked(cause)) {
        return;
      }
    } finally {
      state.unlock();
    }
    agent.breakLater(this, cause);
  }

  TransportException postFailure(IOException e) {
    return new ConnectionLostException("posting READs failed: " + e.getMessage(), peer, null, e);
  }

  /**
   * Under the lock: posts the admitted READs, {@link QueuePair#MAX_BATCH} per doorbell with only
   * the last one signalled. Posts nothing once the channel is closing, broken or a post failed.
   * Returns the failure of a post, if one failed. Reads the clock only when it posts (the end of
   * every round asks, mostly with nothing admitted; in an emulated guest a clock read costs more
   * than a poll of the completion queue).
   */
  private IOException postAdmittedLocked() {
    if (admitted.isEmpty() || broken || postFailed || key < 0 || closingLocked() != null) {
      return null;
    }
    long now = System.nanoTime();
    while (!admitted.isEmpty()) {
      int k = Math.min(QueuePair.MAX_BATCH, admitted.size());
      for (int i = 0; i < k; i++) {
        ReadOp op = admitted.pollFirst();
        long seq = ring.add(op, now);
        qp.setRead(
            i,
            VerbsAgent.wrId(key, seq),
            i == k - 1,
            op.remoteAddress(),
            op.rkey(),
            op.target().address() + op.targetOffset(),
            op.length(),
            op.target().lkey());
      }
      try {
        qp.post(k);
      } catch (IOException e) {
        // which of the batch reached the queue pair is unknown: all stay in the ring, and the
        // agent ends them as it ends the channel (released only once the queue pair is gone)
        postFailed = true;
        return e;
      }
    }
    return null;
  }

  // ------------------------------------------------------------ agent side

  /**
   * A completion named the READ whose sequence number has the low bits {@code low}: the READs from
   * the oldest through that one ended (a reliable connection completes in order); moves them into
   * {@code out}. While open, frees their room (the agent then rings the doorbell for what that
   * admits). Returns false when no READ in flight matches (a late completion).
   */
  boolean takeCompleted(int low, EndedReads out, long now) {
    state.lock();
    try {
      long seq = ring.sequenceOf(low);
      if (seq < 0) {
        return false;
      }
      int n = 0;
      long bytes = 0;
      while (!ring.isEmpty() && ring.oldestSequence() <= seq) {
        long at = ring.oldestPostedAt();
        ReadOp op = ring.removeOldest();
        out.add(op, at);
        n++;
        bytes += op.length();
      }
      if (!broken) {
        releaseLocked(n, bytes); // the agent rings the doorbell for what this admits
      }
      return true;
    } finally {
      state.unlock();
    }
  }

  /**
   * Marks the channel broken: nothing more is posted, posts fail at once. Returns the READs that
   * were never posted (admitted or waiting), or null when it was broken already.
   */
  List<ReadOp> markBroken(TransportException cause) {
    state.lock();
    try {
      if (broken) {
        return null;
      }
      broken = true;
      closeLocked(cause);
      List<ReadOp> never = new ArrayList<>(admitted);
      admitted.clear();
      never.addAll(endLocked());
      return never;
    } finally {
      state.unlock();
    }
  }

  /** Moves every READ still in flight into {@code out}. */
  void takeAll(EndedReads out) {
    state.lock();
    try {
      while (!ring.isEmpty()) {
        long at = ring.oldestPostedAt();
        out.add(ring.removeOldest(), at);
      }
    } finally {
      state.unlock();
    }
  }

  /** When the oldest READ in flight was posted, or -1 when none is. */
  long oldestPostedAt() {
    state.lock();
    try {
      return ring.isEmpty() ? -1 : ring.oldestPostedAt();
    } finally {
      state.unlock();
    }
  }

  boolean isBroken() {
    state.lock();
    try {
      return broken;
    } finally {
      state.unlock();
    }
  }

  /** READs posted and not yet ended (still in the work request ring). */
  int postedCount() {
    state.lock();
    try {
      return ring.size();
    } finally {
      state.unlock();
    }
  }

  @Override
  public String toString() {
    return "verbs channel to " + peer + " for " + application;
  }
}
