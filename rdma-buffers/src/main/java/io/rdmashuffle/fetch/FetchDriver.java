/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The thread that drives a process's {@link BlockFetcher}s while their consumers are busy reading
 * other blocks: it dispatches the locate answers, READ completions and retries that arrived (plans
 * READs, posts them within the task's bounds), never waiting for a buffer, a connection or a lock a
 * consumer holds. One per reading process, closed with it.
 */
public final class FetchDriver implements Executor, AutoCloseable {
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "rdma-fetch-driver");
            t.setDaemon(true);
            return t;
          });

  /**
   * Runs {@code task} on the driver thread.
   *
   * @throws java.util.concurrent.RejectedExecutionException once closed
   */
  @Override
  public void execute(Runnable task) {
    thread.execute(task);
  }

  /** Stops taking work; what was queued still runs (each drive returns quickly). */
  @Override
  public void close() {
    thread.shutdown();
    try {
      thread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
