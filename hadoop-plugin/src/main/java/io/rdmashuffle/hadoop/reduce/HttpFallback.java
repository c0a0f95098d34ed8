/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import java.io.IOException;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;

/**
 * Rounds of the stock HTTP fetch, run on one of our fetcher threads ({@link HttpFallbackFetcher}).
 */
interface HttpFallback {
  /** One stock fetch round from {@code host}, which the caller holds (got from getHost). */
  void copyFrom(MapHost host) throws IOException;

  /** Closes the HTTP connection of a round in progress, so that its blocked read fails. */
  void abortConnection();

  /** Releases what the stock fetcher holds. */
  void shutDown() throws InterruptedException;
}
