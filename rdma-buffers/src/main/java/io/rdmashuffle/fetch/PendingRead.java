/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;

/**
 * A READ a {@link BlockFetcher} issued and has not settled: what to do with its bytes when they
 * arrive, and what to issue again (with the owner's fresh descriptor) when the owner withdrew the
 * registration it was READ from. Every kind of pending READ says so itself, so the fetcher never
 * asks which kind it holds. Consumer thread only.
 */
interface PendingRead {
  /** The map output the READ is of. */
  BlockSource source();

  /** The first partition the READ carries (to name it in a failure). */
  int partition();

  /**
   * The last partition the READ carries: an owner asked again where to READ it must describe every
   * partition from {@link #partition()} to this one.
   */
  default int lastPartition() {
    return partition();
  }

  /** The bytes are there. */
  void arrived(FetchedSegment segment) throws BlockFetchException;

  /** Issues the same READ again from {@code data}, the owner's current registration. */
  void reissue(PeerAddress responder, RegisteredFileDescriptor data);

  /**
   * Whether {@code table} (the owner's answer when asked again) places and checksums this READ's
   * blocks as the table it was planned from did: an output re-published under the same id since
   * must not have its bytes mixed with the first one's.
   */
  boolean sameLayout(PartitionTable table);
}
