/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one error handler of the transport's loop threads: counts every error that escapes a round
 * (through {@code counter}: the transport's engine errors) and logs it with the loop's role, at
 * most once per {@value #LOG_INTERVAL_SECONDS} seconds per role, saying how many were not logged
 * since, so a loop that fails every round can't flood the log. Never throws; thread-safe.
 */
public final class CountedErrorHandler implements ErrorHandler {
  private static final Logger LOG = LoggerFactory.getLogger(CountedErrorHandler.class);
  static final long LOG_INTERVAL_SECONDS = 10;

  private final Runnable counter;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  /** What was logged last for one role, and what was not logged since. */
  private static final class Window {
    final AtomicLong lastLogged = new AtomicLong(Long.MIN_VALUE);
    final AtomicLong unlogged = new AtomicLong();
  }

  public CountedErrorHandler(Runnable counter) {
    this.counter = counter;
  }

  @Override
  public void onError(Agent agent, Throwable t) {
    try {
      counter.run();
      String role = agent.roleName();
      Window w = windows.computeIfAbsent(role, r -> new Window());
      long now = System.nanoTime();
      long last = w.lastLogged.get();
      if (last != Long.MIN_VALUE && now - last < TimeUnit.SECONDS.toNanos(LOG_INTERVAL_SECONDS)) {
        w.unlogged.incrementAndGet();
        return;
      }
      if (!w.lastLogged.compareAndSet(last, now)) {
        w.unlogged.incrementAndGet();
        return;
      }
      long skipped = w.unlogged.getAndSet(0);
      LOG.error(
          "{}: an error escaped a round; the loop goes on{}",
          role,
          skipped == 0 ? "" : " (" + skipped + " more since the last one logged)",
          t);
    } catch (Throwable ignored) {
      // out of memory while logging: the count is what is left
    }
  }
}
