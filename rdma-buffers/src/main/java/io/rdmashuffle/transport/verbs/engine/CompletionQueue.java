/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import java.io.IOException;

/**
 * A completion queue with its completion channel and a wake-up event, as the engine uses it. {@link
 * #poll} and {@link #arm} are called by whichever thread runs the engine's duty cycle (one at a
 * time); {@link #await} blocks that thread; {@link #wake} may be called from any thread.
 */
public interface CompletionQueue {
  /**
   * Moves up to {@code into.capacity()} completions into {@code into} (copied out: the device's
   * completion objects are reused) and returns how many.
   */
  int poll(Completions into) throws IOException;

  /** Asks for an event on the completion channel at the next completion. */
  void arm() throws IOException;

  /**
   * Blocks until a completion event (acknowledged here), a {@link #wake}, or {@code timeoutMillis}.
   * A wake that came before the call makes it return at once.
   */
  void await(int timeoutMillis) throws IOException;

  /** Makes a thread blocked in {@link #await}, or the next one to call it, return. */
  void wake();
}
