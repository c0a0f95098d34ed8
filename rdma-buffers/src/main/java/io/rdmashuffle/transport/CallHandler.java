/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Answers the calls of one service ({@link Transport#serveCalls}). Runs on the connection server's
 * bounded pool of call workers, never on an I/O thread, so it may block briefly (to register
 * memory, say); a call it leaves waiting holds a worker, and when every worker is busy and the
 * queue is full further calls are refused as busy.
 */
@FunctionalInterface
public interface CallHandler {
  /** Who made a call: the application its connection proved and the address it came from. */
  record Caller(String application, InetSocketAddress address) {}

  /**
   * Returns the answer (at most {@code call.maxAnswerBytes}).
   *
   * @param request the request's bytes (read-only, valid during this call only)
   * @throws CallRefusedException to refuse with a status and a reason the caller sees
   */
  ByteBuffer answer(String application, ByteBuffer request) throws CallRefusedException;

  /** As {@link #answer(String, ByteBuffer)}, for handlers that need the caller's address. */
  default ByteBuffer answer(Caller caller, ByteBuffer request) throws CallRefusedException {
    return answer(caller.application(), request);
  }
}
