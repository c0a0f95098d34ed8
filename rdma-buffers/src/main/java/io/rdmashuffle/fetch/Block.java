/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.io.InputStream;

/**
 * One block (a partition of one map output) handed to a reduce task by a {@link BlockFetcher}: read
 * its {@link #stream()} once, then close the stream (or {@link #release()} the block). After a
 * release the stream fails with an {@code IOException}: it never touches memory or files that were
 * given back, whichever thread still reads it.
 */
public abstract class Block {
  private final BlockSource source;
  private final int partition;
  private final long size;
  private final boolean remote;

  Block(BlockSource source, int partition, long size, boolean remote) {
    this.source = source;
    this.partition = partition;
    this.size = size;
    this.remote = remote;
  }

  public BlockSource source() {
    return source;
  }

  public int partition() {
    return partition;
  }

  /** The block's length in bytes. */
  public long size() {
    return size;
  }

  /** Whether it came through the transport (false: read from its file on this host). */
  public boolean remote() {
    return remote;
  }

  /** The block's bytes; closing the stream releases the block. */
  public abstract InputStream stream();

  /** Gives back the block's memory or file; idempotent, any thread. */
  public abstract void release();

  /** Whether {@link #settle()} ran: see {@link FetchContext#settled}. */
  private boolean settled;

  /**
   * Marks the block settled: its bytes are here (or it needs nothing more from its owner), or it
   * was handed over. Returns true the first time only. Under the fetcher's lock.
   */
  boolean settle() {
    if (settled) {
      return false;
    }
    settled = true;
    return true;
  }

  /** Whether {@link #release()} ran. */
  abstract boolean isReleased();

  /** Checks what can be checked before the consumer sees any byte; the default checks nothing. */
  void verifyBeforeHandOver() throws BlockFetchException {}
}
