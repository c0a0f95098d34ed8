/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What other threads hand the agent to run on its thread (closing a channel, breaking one after a
 * disconnect, device removal): a locked queue, and a wake-up of the completion queue so an agent
 * blocked there runs them at once. Only control work passes here, never a READ.
 */
final class AgentCommands {
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private final CompletionQueue cq;

  AgentCommands(CompletionQueue cq) {
    this.cq = cq;
  }

  /** Any thread: queues {@code command} and wakes the agent. */
  void submit(Runnable command) {
    lock.lock();
    try {
      queue.addLast(command);
    } finally {
      lock.unlock();
    }
    cq.wake();
  }

  boolean isEmpty() {
    lock.lock();
    try {
      return queue.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  /** Agent: runs what was queued, including what the commands queue; returns how many ran. */
  int runAll() {
    int n = 0;
    while (true) {
      Runnable c;
      lock.lock();
      try {
        c = queue.pollFirst();
      } finally {
        lock.unlock();
      }
      if (c == null) {
        return n;
      }
      c.run();
      n++;
    }
  }
}
