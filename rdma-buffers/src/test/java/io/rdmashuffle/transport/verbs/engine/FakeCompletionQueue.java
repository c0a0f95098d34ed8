/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion queue the test fills by hand ({@link #complete}); {@link #await} blocks until a
 * completion is added (when armed: an event, kept until an await takes it), a wake, or the timeout,
 * as the completion channel and the wake-up event do.
 */
final class FakeCompletionQueue implements CompletionQueue {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<long[]> entries = new ArrayDeque<>();
  private boolean armed;
  private boolean event;
  private boolean woken;
  int awaits;

  /** The timeout of every {@link #await}, in order. */
  final List<Integer> awaitTimeouts = new ArrayList<>();

  int arms;

  /** Await ignores its timeout: only a completion (when armed) or a wake ends it. */
  volatile boolean untilWoken;

  void complete(long wrId, int status) {
    lock.lock();
    try {
      entries.addLast(new long[] {wrId, status});
      if (armed) {
        armed = false;
        event = true;
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** How often a thread entered {@link #await} so far. */
  int awaits() {
    lock.lock();
    try {
      return awaits;
    } finally {
      lock.unlock();
    }
  }

  int pending() {
    lock.lock();
    try {
      return entries.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int poll(Completions into) {
    lock.lock();
    try {
      int n = 0;
      while (n < into.capacity() && !entries.isEmpty()) {
        long[] e = entries.pollFirst();
        into.set(n++, e[0], (int) e[1]);
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void arm() {
    lock.lock();
    try {
      armed = true;
      arms++;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void await(int timeoutMillis) throws java.io.IOException {
    lock.lock();
    try {
      awaits++;
      awaitTimeouts.add(timeoutMillis);
      long left = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
      while (!woken && !event && (left > 0 || untilWoken)) {
        try {
          left =
              untilWoken
                  ? changed.awaitNanos(TimeUnit.SECONDS.toNanos(1))
                  : changed.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException();
        }
      }
      woken = false;
      event = false;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void wake() {
    lock.lock();
    try {
      woken = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
