/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

/** One way of fetching every block of a served file, measured by {@link TransportReadBenchmark}. */
interface FetchSide extends AutoCloseable {
  String name();

  /**
   * Fetches all {@code blocks} blocks of {@code blockSize} bytes, {@code passes} times, keeping
   * {@code window} requests in flight; returns the bytes that arrived.
   */
  long fetchAll(int blockSize, int blocks, int passes, int window) throws Exception;

  @Override
  void close();
}
