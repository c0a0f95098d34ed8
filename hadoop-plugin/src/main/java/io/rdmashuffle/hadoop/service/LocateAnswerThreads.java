/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.ServerConfig;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of {@link RdmaShuffleHandler} that check and answer locate requests: {@code
 * call.workers} of them, and at most {@code call.queue} requests waiting (not yet authenticated, so
 * bounded); a request beyond is told to come back later (429), as the stock handler tells a reducer
 * over its connection limit. Started with the service, shut down when it stops.
 */
final class LocateAnswerThreads {
  private final ExecutorService threads;

  LocateAnswerThreads(RdmaConf conf) {
    AtomicInteger n = new AtomicInteger();
    int workers = conf.get(ServerConfig.CALL_WORKERS);
    ThreadPoolExecutor e =
        new ThreadPoolExecutor(
            workers,
            workers,
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(conf.get(ServerConfig.CALL_QUEUE)),
            r -> {
              Thread t = new Thread(r, "rdma-shuffle-locate-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.AbortPolicy());
    e.allowCoreThreadTimeOut(true);
    this.threads = e;
  }

  /**
   * Runs an answer on these threads (registration may take a while).
   *
   * @return false when the answer queue is full (the request should come back later)
   * @throws RejectedExecutionException when the threads were shut down
   */
  boolean answerLater(Runnable task) {
    if (threads.isShutdown()) {
      throw new RejectedExecutionException("not started");
    }
    try {
      threads.execute(task);
      return true;
    } catch (RejectedExecutionException full) {
      if (threads.isShutdown()) {
        throw full;
      }
      return false;
    }
  }

  /** Stops the threads; answers under way are interrupted, waiting requests dropped. */
  void shutdownNow() {
    threads.shutdownNow();
  }
}
