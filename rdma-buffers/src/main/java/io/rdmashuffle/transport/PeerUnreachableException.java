/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/** The peer could not be reached, or connection setup did not finish within the connect timeout. */
public final class PeerUnreachableException extends TransportException {
  private static final long serialVersionUID = 1L;

  public PeerUnreachableException(
      String message, PeerAddress peer, ReadOp request, Throwable cause) {
    super(message, peer, request, cause);
  }

  @Override
  public FailureKind kind() {
    return FailureKind.UNREACHABLE;
  }
}
