/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/**
 * The peer refused a READ, as a NIC refuses it with a remote access error. No byte of the request's
 * range was transferred.
 */
public final class RemoteAccessException extends TransportException {
  private static final long serialVersionUID = 1L;

  /** Why the peer refused. */
  public enum Reason {
    /** No region has this rkey. */
    BAD_RKEY,
    /** The range is not wholly inside the region. */
    OUT_OF_BOUNDS,
    /** The region was deregistered. */
    DEREGISTERED,
    /** The region belongs to another application than the one this connection proved. */
    NOT_PERMITTED,
    /** The device reported a remote access error without saying which of the above. */
    UNSPECIFIED
  }

  private final Reason reason;

  public RemoteAccessException(Reason reason, PeerAddress peer, ReadOp request) {
    super("READ refused by the peer: " + reason, peer, request, null);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }

  @Override
  public FailureKind kind() {
    return FailureKind.REMOTE_ACCESS;
  }
}
