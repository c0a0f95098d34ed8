/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.transport.engine.ConnectionTable;
import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's reading channels, found by the key their work request ids carry, and the completion
 * queue room they hold: a channel reserves its depth of completion queue entries when it is
 * registered (a queue pair in error completes every posted READ, signalled or not), so the queue
 * can't overflow; the reservation is returned when its queue pair is gone. Registering and removing
 * take a lock (any thread); lookups are the agent thread's.
 */
final class ChannelRoom {
  private final ConnectionTable<VerbsReadChannel> channels;
  private final int maxDepth;

  /** Guards the room and the table's changes. */
  private final ReentrantLock lock = new ReentrantLock();

  private int entriesLeft;

  /**
   * @param cqEntries entries of the completion queue: the READs of all channels together
   * @param maxDepth the deepest send queue a channel may have
   */
  ChannelRoom(int cqEntries, int maxDepth) {
    this.entriesLeft = cqEntries;
    this.maxDepth = maxDepth;
    this.channels =
        new ConnectionTable<>(Math.min(ConnectionTable.MAX_CAPACITY, Math.max(1, cqEntries)));
  }

  /** The deepest send queue a new channel can get now (0: the completion queue is full). */
  int depthAvailable(int wanted) {
    lock.lock();
    try {
      return Math.min(Math.min(wanted, maxDepth), entriesLeft);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Makes a channel's completions findable and reserves its depth of completion queue entries.
   *
   * @throws IOException when the completion queue has no room left for it
   */
  void register(VerbsReadChannel ch) throws IOException {
    lock.lock();
    try {
      if (ch.isBroken()) {
        throw new IOException("the connection ended while it was being set up");
      }
      if (ch.depth() > entriesLeft || ch.depth() > maxDepth) {
        throw new IOException(
            "the completion queue has room for "
                + Math.min(entriesLeft, maxDepth)
                + " more READs, a channel of depth "
                + ch.depth()
                + " does not fit");
      }
      int key = channels.add(ch);
      if (key < 0) {
        throw new IOException("too many reading channels (" + channels.capacity() + ")");
      }
      entriesLeft -= ch.depth();
      ch.key(key);
    } finally {
      lock.unlock();
    }
  }

  /** The channel of a work request id's key; null when it ended. Agent thread. */
  VerbsReadChannel get(int key) {
    return channels.get(key);
  }

  /** Slots to look at with {@link #at}. */
  int capacity() {
    return channels.capacity();
  }

  /** The channel in slot {@code i}, or null. Agent thread. */
  VerbsReadChannel at(int i) {
    return channels.at(i);
  }

  /**
   * Forgets a channel that has no READ left; its room is free again only when its queue pair is
   * gone (else the queue pair may still complete into the queue).
   */
  void remove(VerbsReadChannel ch, boolean queuePairGone) {
    lock.lock();
    try {
      int key = ch.key();
      if (key >= 0) { // registered: it reserved its depth of the completion queue
        channels.remove(key);
        if (queuePairGone) {
          entriesLeft += ch.depth();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether a channel's queue pair is in the error state, flushing its READs. Agent thread. */
  boolean anyDraining() {
    for (int i = 0; i < channels.capacity(); i++) {
      VerbsReadChannel ch = channels.at(i);
      if (ch != null && ch.draining) {
        return true;
      }
    }
    return false;
  }
}
