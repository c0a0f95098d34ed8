/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

/**
 * Learns how a READ ended. Called exactly once per posted READ, on a transport thread: it must not
 * block (hand longer work to another thread). It may post more READs.
 */
public interface ReadListener {
  /** The READ's bytes are in its target. */
  void onReadComplete(ReadOp op);

  /** The READ failed; its target holds no meaningful bytes. */
  void onReadFailed(ReadOp op, TransportException cause);
}
