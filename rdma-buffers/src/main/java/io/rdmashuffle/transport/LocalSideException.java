/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/**
 * This process's own side failed, not the peer: it could not set up its side of a connection (its
 * transport is closed or lost its device, or a resource of its own ran out or was refused: a
 * socket, an RDMA-CM id, a queue pair, room in its completion queue), or its own device refused a
 * READ for a reason of this side (a local length, protection or access error on the READ's own
 * buffer). Nothing is known against the peer, which is not to be blamed for it.
 */
public final class LocalSideException extends TransportException {
  private static final long serialVersionUID = 1L;

  /**
   * @param request the READ this side's device refused, or null for a connection's setup
   */
  public LocalSideException(String message, PeerAddress peer, ReadOp request, Throwable cause) {
    super(message, peer, request, cause);
  }

  @Override
  public FailureKind kind() {
    return FailureKind.LOCAL_SIDE;
  }
}
