/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A listener that counts outcomes and lets a test wait for a number of them. */
public final class ReadResults implements ReadListener {
  private final CountDownLatch done;
  private final AtomicInteger completed = new AtomicInteger();
  private final List<TransportException> failures = new ArrayList<>();
  private final List<ReadOp> failedOps = new ArrayList<>();

  public ReadResults(int expected) {
    this.done = new CountDownLatch(expected);
  }

  @Override
  public void onReadComplete(ReadOp op) {
    completed.incrementAndGet();
    done.countDown();
  }

  @Override
  public void onReadFailed(ReadOp op, TransportException cause) {
    synchronized (failures) {
      failures.add(cause);
      failedOps.add(op);
    }
    done.countDown();
  }

  /** Waits for all expected outcomes; false on timeout. */
  public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    return done.await(timeout, unit);
  }

  public int completed() {
    return completed.get();
  }

  public List<TransportException> failures() {
    synchronized (failures) {
      return new ArrayList<>(failures);
    }
  }

  public List<ReadOp> failedOps() {
    synchronized (failures) {
      return new ArrayList<>(failedOps);
    }
  }
}
