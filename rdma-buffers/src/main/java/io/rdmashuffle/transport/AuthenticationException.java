/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/**
 * The handshake failed: the peer (or we) could not prove the application secret, or the application
 * is unknown to the peer.
 */
public final class AuthenticationException extends TransportException {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(
      String message, PeerAddress peer, ReadOp request, Throwable cause) {
    super(message, peer, request, cause);
  }

  @Override
  public FailureKind kind() {
    return FailureKind.AUTHENTICATION;
  }
}
