/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import java.util.ArrayList;

/**
 * Posts made on the thread that delivers a round of completions (the agent's, or a reader's that
 * polls while it waits: the {@link PollerLock}'s holder) (listeners posting their next READs, room
 * freed by completions admitting waiting ones): instead of one doorbell per post, each channel's
 * admitted READs are rung once after the round, many per doorbell. Owned by the agent; {@link
 * #isAgentThread} may be asked by any thread.
 */
final class Doorbells {
  private final ArrayList<VerbsReadChannel> pending = new ArrayList<>();

  /** The thread running a round now (the poller lock's holder); null between rounds. */
  private volatile Thread roundThread;

  /** The calling thread starts a round (agent). */
  void beginRound() {
    roundThread = Thread.currentThread();
  }

  /** Rings what the round deferred, and ends it (agent). */
  void endRound() {
    ringPending();
    roundThread = null;
  }

  /** Whether the caller is the agent inside a round, whose posts wait for the round's end. */
  boolean isAgentThread() {
    return Thread.currentThread() == roundThread;
  }

  /** Agent: rings {@code ch}'s doorbell when the round ends (once, however often asked). */
  void later(VerbsReadChannel ch) {
    if (!ch.postQueued) {
      ch.postQueued = true;
      pending.add(ch);
    }
  }

  /** Agent: rings every deferred doorbell now. */
  void ringPending() {
    for (int i = 0; i < pending.size(); i++) {
      VerbsReadChannel ch = pending.get(i);
      ch.postQueued = false;
      ch.postNow();
    }
    pending.clear();
  }
}
