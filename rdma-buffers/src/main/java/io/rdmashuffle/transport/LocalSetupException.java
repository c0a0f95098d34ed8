/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/**
 * This process could not set up its own side of a connection to the peer: its transport is closed
 * or lost its device, or a resource of its own ran out or was refused (a socket, an RDMA-CM id, a
 * queue pair, room in its completion queue). Nothing is known about the peer, which is not to be
 * blamed for it.
 */
public final class LocalSetupException extends TransportException {
  private static final long serialVersionUID = 1L;

  public LocalSetupException(String message, PeerAddress peer, Throwable cause) {
    super(message, peer, null, cause);
  }

  @Override
  public FailureKind kind() {
    return FailureKind.LOCAL_SETUP;
  }
}
