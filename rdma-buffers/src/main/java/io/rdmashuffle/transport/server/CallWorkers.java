/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that run {@link io.rdmashuffle.transport.CallHandler}s: at most {@code call.workers},
 * started when needed and ended after a minute idle, with a queue of at most {@code call.queue}
 * calls. A call beyond both is refused at once ({@link #tryRun} returns false): never an unbounded
 * queue. Owned by {@link ConnectionServer}.
 */
final class CallWorkers {
  private final ThreadPoolExecutor pool;

  CallWorkers(int threads, int queue, String name) {
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(queue),
            r -> {
              Thread t = new Thread(r, name + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs {@code task} on a worker, or returns false when every worker is busy and the queue full.
   */
  boolean tryRun(Runnable task) {
    try {
      pool.execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  void close() {
    pool.shutdownNow();
  }
}
