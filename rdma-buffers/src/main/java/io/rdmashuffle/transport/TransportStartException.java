/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import java.io.IOException;

/** A transport could not start on this node; the message says why. */
public final class TransportStartException extends IOException {
  private static final long serialVersionUID = 1L;

  public TransportStartException(String message) {
    super(message);
  }

  public TransportStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
