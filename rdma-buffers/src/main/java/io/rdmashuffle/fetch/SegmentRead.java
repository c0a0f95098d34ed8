/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One request of a {@link SegmentFetcher} on its way: its owner's queue, its buffer, its READs and
 * their outcome, its attempts. The listener of its READs: when the last one ends (on a transport
 * thread) it is handed to the fetcher's consumer. Otherwise the consumer's thread only.
 */
final class SegmentRead implements ReadListener, SegmentFetcher.Event {
  final SegmentRequest request;
  final SegmentAdmission.PeerQueue queue;
  int attempts;
  long notBefore;
  PooledBuffer buffer;
  ReadChannel channel;

  /** Why its last connection could not be had (a background open failed), or null. */
  TransportException openFailure;

  final AtomicInteger parts = new AtomicInteger();
  final AtomicReference<TransportException> failure = new AtomicReference<>();

  /** Told (on the thread where its last READ ended) that all its READs ended. */
  private final Consumer<SegmentRead> ended;

  SegmentRead(
      SegmentRequest request, SegmentAdmission.PeerQueue queue, Consumer<SegmentRead> ended) {
    this.request = request;
    this.queue = queue;
    this.ended = ended;
  }

  @Override
  public void onReadComplete(ReadOp op) {
    partDone();
  }

  @Override
  public void onReadFailed(ReadOp op, TransportException cause) {
    failure.compareAndSet(null, cause);
    partDone();
  }

  private void partDone() {
    if (parts.decrementAndGet() == 0) {
      ended.accept(this);
    }
  }
}
