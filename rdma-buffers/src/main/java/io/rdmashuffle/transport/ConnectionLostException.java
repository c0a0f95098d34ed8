/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/** The connection broke, or was closed, while the READ was in flight or queued. */
public final class ConnectionLostException extends TransportException {
  private static final long serialVersionUID = 1L;

  public ConnectionLostException(
      String message, PeerAddress peer, ReadOp request, Throwable cause) {
    super(message, peer, request, cause);
  }

  @Override
  public FailureKind kind() {
    return FailureKind.CONNECTION_LOST;
  }
}
