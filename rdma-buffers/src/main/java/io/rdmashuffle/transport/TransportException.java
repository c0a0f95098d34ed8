/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;
import java.io.IOException;

/**
 * A typed transport failure that says which peer and which request. Subclasses name the {@link
 * FailureKind}. Messages never contain rkeys or remote addresses (they are capabilities).
 */
public abstract class TransportException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient PeerAddress peer;
  private final transient ReadOp request;

  protected TransportException(String message, PeerAddress peer, ReadOp request, Throwable cause) {
    super(describe(message, peer, request), cause);
    this.peer = peer;
    this.request = request;
  }

  private static String describe(String message, PeerAddress peer, ReadOp request) {
    StringBuilder sb = new StringBuilder(message);
    if (peer != null) {
      sb.append(" (peer ").append(peer);
      if (request != null) {
        sb.append(", ").append(request);
      }
      sb.append(')');
    } else if (request != null) {
      sb.append(" (").append(request).append(')');
    }
    return sb.toString();
  }

  public abstract FailureKind kind();

  /** The peer involved; null only when the failure happened before a peer was known. */
  public PeerAddress peer() {
    return peer;
  }

  /** The READ that failed, or null for failures outside a READ (connect, handshake). */
  public ReadOp request() {
    return request;
  }
}
