/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link VerbsAgent} takes a batch of completions from its completion queue and ends the
 * READs each names: its work request id ({@link VerbsAgent#wrId}) finds the channel and the READs
 * up to it, which are completed, or the last failed and its channel broken; those of a draining
 * channel fail as flushed. A late completion, of a channel or READ ended already, matches nothing.
 * The doorbells of what listeners posted meanwhile are rung after the batch. Used by the holder of
 * the agent's poller lock only (the agent thread, or a reader polling while it waits).
 */
final class CompletionDelivery {
  /** The engine's logger: what operators configure for it covers this too. */
  private static final Logger LOG = LoggerFactory.getLogger(VerbsAgent.class);

  private final CompletionQueue cq;
  private final Completions completions = new Completions(VerbsAgent.POLL_BATCH);
  private final ChannelRoom channels;
  private final EndedReads ended;
  private final ReadOutcomes outcomes;
  private final ChannelEnding ending;
  private final Doorbells doorbells;
  private final TransportMetrics metrics;

  CompletionDelivery(
      CompletionQueue cq,
      ChannelRoom channels,
      EndedReads ended,
      ReadOutcomes outcomes,
      ChannelEnding ending,
      Doorbells doorbells,
      TransportMetrics metrics) {
    this.cq = cq;
    this.channels = channels;
    this.ended = ended;
    this.outcomes = outcomes;
    this.ending = ending;
    this.doorbells = doorbells;
    this.metrics = metrics;
  }

  /** Polls one batch and delivers it; returns how many completions it found (0 on an error). */
  int poll() {
    int n;
    try {
      n = cq.poll(completions);
    } catch (IOException e) {
      metrics.engineError();
      LOG.warn("polling the completion queue failed", e);
      return 0;
    }
    if (n == 0) {
      return 0; // no clock read: in an emulated guest it costs more than the poll
    }
    long now = System.nanoTime();
    for (int i = 0; i < n; i++) {
      onCompletion(completions.wrId(i), completions.status(i), now);
    }
    doorbells.ringPending();
    return n;
  }

  private void onCompletion(long wrId, int status, long now) {
    VerbsReadChannel ch = channels.get((int) (wrId >>> 32));
    if (ch == null || !ch.takeCompleted((int) wrId, ended, now)) {
      return; // a late completion: its channel or READ has ended already
    }
    int last = ended.count() - 1;
    doorbells.later(ch); // the room these READs leave may admit waiting ones
    if (ch.draining) {
      // flushed (or finished before the error state): the queue pair writes nothing more there
      ending.failEnded(ch, ch.brokenBy, now, true);
      if (ch.postedCount() == 0) {
        ending.finishDrained(ch);
      }
      return;
    }
    TransportException failure =
        status == Completions.SUCCESS
            ? null
            : ReadOutcomes.failureOf(status, ch.peer(), ended.op(last));
    for (int i = 0; i <= last; i++) {
      ReadOp op = ended.op(i);
      op.target().release();
      if (i == last && failure != null) {
        outcomes.fail(op, failure);
      } else {
        outcomes.complete(op, now - ended.postedAt(i));
      }
    }
    ended.clear();
    if (failure != null) {
      // VerbsAgent#breakChannel, whose poller lock this thread holds already
      ending.end(
          ch,
          new ConnectionLostException(
              "queue pair failed: " + Completions.statusName(status), ch.peer(), null, failure));
    }
  }
}
