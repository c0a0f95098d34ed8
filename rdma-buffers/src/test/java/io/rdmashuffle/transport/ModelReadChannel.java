/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport reduced to the rules {@link BoundedReadChannel} holds, for tests of those rules:
 * issued READs wait in a queue until {@link #completeOne} (the transport's completion thread) or
 * {@link #end} (its last act when the connection ends: fail what was issued and what waited) takes
 * them. Counts what breaks the rules: READs issued after the end, READs beyond the bounds.
 */
final class ModelReadChannel extends BoundedReadChannel {
  private final ArrayDeque<ReadOp> issued = new ArrayDeque<>();
  private long issuedBytes;
  private boolean endedHere;
  final AtomicInteger issuedAfterEnd = new AtomicInteger();
  final AtomicInteger beyondBounds = new AtomicInteger();
  volatile boolean over;
  private final int maxRequests;
  private final long maxBytes;

  ModelReadChannel(int maxRequests, long maxBytes) {
    super(new PeerAddress("127.0.0.1", 1), "app", maxRequests, maxBytes);
    this.maxRequests = maxRequests;
    this.maxBytes = maxBytes;
  }

  @Override
  protected void issue(ReadOp op) {
    if (endedHere) {
      issuedAfterEnd.incrementAndGet();
    }
    issued.add(op);
    issuedBytes += op.length();
    if (issued.size() > maxRequests || (issuedBytes > maxBytes && issued.size() > 1)) {
      beyondBounds.incrementAndGet();
    }
  }

  @Override
  protected void afterIssue() {}

  @Override
  protected void fail(ReadOp op, TransportException e) {
    op.listener().onReadFailed(op, e);
  }

  /** Completes the oldest issued READ; false when none is issued. */
  boolean completeOne() {
    ReadOp op;
    state.lock();
    try {
      op = issued.poll();
      if (op == null) {
        return false;
      }
      issuedBytes -= op.length();
      releaseLocked(1, op.length());
    } finally {
      state.unlock();
    }
    op.target().release();
    op.listener().onReadComplete(op);
    return true;
  }

  /** The connection ended: fails every READ issued or waiting. */
  void end() {
    List<ReadOp> ops;
    state.lock();
    try {
      closeLocked(new ConnectionLostException("ended by the test", peer, null, null));
      ops = new ArrayList<>(issued);
      issued.clear();
      issuedBytes = 0;
      ops.addAll(endLocked());
      endedHere = true;
    } finally {
      state.unlock();
    }
    over = true;
    for (ReadOp op : ops) {
      op.target().release();
      fail(op, new ConnectionLostException("connection ended", peer, op, null));
    }
  }

  @Override
  public void close() {
    state.lock();
    try {
      closeLocked(new ConnectionLostException("closed locally", peer, null, null));
    } finally {
      state.unlock();
    }
  }
}
