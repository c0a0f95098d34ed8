/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

/**
 * What an engine thread does after a round of its duty cycle (Agrona's idle strategy): nothing when
 * the round found work, otherwise wait a little longer each time it found none.
 */
public interface IdleStrategy {
  /** After a round that did {@code workCount} things (0: nothing). */
  void idle(int workCount);

  /** Forget past idle rounds: the next idle round starts from the shortest wait. */
  void reset();
}
