/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

/** Where a loop thread's errors go (Agrona's {@code ErrorHandler}): it never throws. */
@FunctionalInterface
public interface ErrorHandler {
  /** {@code t} escaped a round of {@code agent}. */
  void onError(Agent agent, Throwable t);
}
