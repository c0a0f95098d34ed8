/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportException;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link VerbsAgent} ends a channel and the READs it still has: READ targets are released
 * only once the queue pair can no longer write into them (destroyed, or flushed in the error
 * state), else leaked on purpose and counted. Used by the holder of the agent's poller lock only.
 */
final class ChannelEnding {
  /** The engine's logger: what operators configure for it covers this too. */
  private static final Logger LOG = LoggerFactory.getLogger(VerbsAgent.class);

  private final ChannelRoom channels;
  private final EndedReads ended;
  private final ReadOutcomes outcomes;
  private final TransportMetrics metrics;
  private final long timeoutNanos;
  private final Consumer<VerbsReadChannel> onEnded;

  ChannelEnding(
      ChannelRoom channels,
      EndedReads ended,
      ReadOutcomes outcomes,
      TransportMetrics metrics,
      long timeoutNanos,
      Consumer<VerbsReadChannel> onEnded) {
    this.channels = channels;
    this.ended = ended;
    this.outcomes = outcomes;
    this.metrics = metrics;
    this.timeoutNanos = timeoutNanos;
    this.onEnded = onEnded;
  }

  /** Ends {@code ch} (see {@link VerbsAgent#breakChannel}); idempotent. */
  void end(VerbsReadChannel ch, TransportException cause) {
    List<ReadOp> never = ch.markBroken(cause);
    if (never == null) {
      return;
    }
    ch.brokenBy = cause;
    for (ReadOp op : never) {
      op.target().release(); // never posted: nothing writes there
      outcomes.fail(op, ReadOutcomes.lost(ch, op, cause));
    }
    long now = System.nanoTime();
    QueuePair qp = ch.queuePair();
    if (qp.destroy()) {
      endAll(ch, cause, now, true);
      finish(ch, true);
    } else if (ch.postedCount() > 0 && qp.moveToError()) {
      ch.draining = true;
      ch.drainDeadline = now + timeoutNanos;
    } else {
      endAll(ch, cause, now, false);
      finish(ch, false);
    }
  }

  /** Fails every READ still in flight; releases their targets only when {@code safe}. */
  void endAll(VerbsReadChannel ch, TransportException cause, long now, boolean safe) {
    ch.takeAll(ended);
    failEnded(ch, cause, now, safe);
  }

  /** Fails the READs taken into {@code ended}; releases their targets only when {@code safe}. */
  void failEnded(VerbsReadChannel ch, TransportException cause, long now, boolean safe) {
    for (int i = 0; i < ended.count(); i++) {
      ReadOp op = ended.op(i);
      if (safe) {
        op.target().release();
      } else {
        metrics.readTargetLeaked();
      }
      boolean late = now - ended.postedAt(i) > timeoutNanos;
      outcomes.fail(
          op,
          late
              ? new ReadTimeoutException("READ timed out", ch.peer(), op, null)
              : ReadOutcomes.lost(ch, op, cause));
    }
    if (!safe && ended.count() > 0) {
      LOG.error(
          "{}: its queue pair could not be destroyed nor flushed; the buffers of {} READ(s)"
              + " in flight are leaked rather than reused",
          ch,
          ended.count());
    }
    ended.clear();
  }

  /** Every READ of a channel in the error state was flushed: its queue pair goes. */
  void finishDrained(VerbsReadChannel ch) {
    // every READ was flushed: the queue pair only needs to go
    boolean gone = ch.queuePair().destroy();
    if (!gone) {
      LOG.warn("{}: its flushed queue pair could not be destroyed (left to the process)", ch);
    }
    finish(ch, gone);
  }

  /** The channel has no READ left: forget it; its completion queue room is free once it is gone. */
  void finish(VerbsReadChannel ch, boolean queuePairGone) {
    ch.draining = false;
    channels.remove(ch, queuePairGone);
    if (!queuePairGone) {
      metrics.queuePairLeaked();
    }
    onEnded.accept(ch);
  }

  /**
   * Breaks every channel whose oldest READ exceeded the read timeout, and gives up on queue pairs
   * in the error state that did not flush within it (their targets leaked, counted).
   */
  void checkTimeouts(long now) {
    for (int i = 0; i < channels.capacity(); i++) {
      VerbsReadChannel ch = channels.at(i);
      if (ch == null) {
        continue;
      }
      if (ch.draining) {
        if (now - ch.drainDeadline > 0) {
          LOG.warn(
              "{}: the queue pair in the error state did not flush its READs within the read"
                  + " timeout; their buffers are leaked rather than reused",
              ch);
          endAll(ch, ch.brokenBy, now, false);
          finish(ch, false);
        }
        continue;
      }
      long oldest = ch.oldestPostedAt();
      if (oldest != -1 && now - oldest > timeoutNanos) {
        end(
            ch,
            new ReadTimeoutException(
                "READ(s) exceeded the read timeout; queue pair closed", ch.peer(), null, null));
      }
    }
  }

  /** Ends every channel not already flushing (the transport closes). */
  void endEvery(String why) {
    for (int i = 0; i < channels.capacity(); i++) {
      VerbsReadChannel ch = channels.at(i);
      if (ch != null && !ch.draining) {
        end(ch, new ConnectionLostException(why, ch.peer(), null, null));
      }
    }
  }

  /** Gives up on every queue pair still flushing: its READs fail, their targets leaked. */
  void leakUnflushed(long now) {
    for (int i = 0; i < channels.capacity(); i++) {
      VerbsReadChannel ch = channels.at(i);
      if (ch != null && ch.draining) {
        endAll(ch, ch.brokenBy, now, false);
        finish(ch, false);
      }
    }
  }
}
