/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A queue pair that records what is posted on it and answers destroy and error-state requests as
 * the test says. Optionally hands each posted doorbell to a sink (a fake device).
 */
class FakeQueuePair implements QueuePair {
  /** One posted READ as the device would see it. */
  record Posted(
      long wrId,
      boolean signaled,
      long remoteAddress,
      int rkey,
      long localAddress,
      int length,
      int lkey) {}

  private final Posted[] staged = new Posted[MAX_BATCH];
  final List<Posted> posted = new ArrayList<>();
  final List<Integer> doorbells = new ArrayList<>();
  volatile boolean destroyWorks = true;
  volatile boolean errorStateWorks = true;
  volatile IOException postFailure;
  volatile int destroyCalls;
  volatile int errorStateCalls;
  volatile boolean destroyed;
  volatile boolean inErrorState;
  private final Consumer<List<Posted>> device;

  FakeQueuePair() {
    this(null);
  }

  FakeQueuePair(Consumer<List<Posted>> device) {
    this.device = device;
  }

  @Override
  public void setRead(
      int index,
      long wrId,
      boolean signaled,
      long remoteAddress,
      int rkey,
      long localAddress,
      int length,
      int lkey) {
    staged[index] = new Posted(wrId, signaled, remoteAddress, rkey, localAddress, length, lkey);
  }

  @Override
  public synchronized void post(int count) throws IOException {
    if (destroyed) {
      throw new AssertionError("posted on a destroyed queue pair");
    }
    if (postFailure != null) {
      throw postFailure;
    }
    List<Posted> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(staged[i]);
    }
    posted.addAll(batch);
    doorbells.add(count);
    if (device != null) {
      device.accept(batch);
    }
  }

  @Override
  public synchronized boolean destroy() {
    destroyCalls++;
    if (destroyWorks) {
      destroyed = true;
    }
    return destroyWorks;
  }

  @Override
  public synchronized boolean moveToError() {
    errorStateCalls++;
    if (errorStateWorks) {
      inErrorState = true;
    }
    return errorStateWorks;
  }

  synchronized List<Posted> posted() {
    return new ArrayList<>(posted);
  }
}
