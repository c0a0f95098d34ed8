/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/** A READ did not complete within the read timeout; its connection was closed. */
public final class ReadTimeoutException extends TransportException {
  private static final long serialVersionUID = 1L;

  public ReadTimeoutException(String message, PeerAddress peer, ReadOp request, Throwable cause) {
    super(message, peer, request, cause);
  }

  @Override
  public FailureKind kind() {
    return FailureKind.TIMEOUT;
  }
}
