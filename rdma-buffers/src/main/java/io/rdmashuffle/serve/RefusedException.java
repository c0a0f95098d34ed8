/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import java.io.IOException;

/** A map output may not be served to the application that asked; the message says why. */
public final class RefusedException extends IOException {
  private static final long serialVersionUID = 1L;

  public RefusedException(String message) {
    super(message);
  }
}
