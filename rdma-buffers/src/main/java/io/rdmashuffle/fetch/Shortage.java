/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.io.IOException;

/** The reader's own resources ran out: no registered buffer within the allocation wait. */
public final class Shortage extends IOException {
  private static final long serialVersionUID = 1L;

  Shortage(String message, Throwable cause) {
    super(message, cause);
  }
}
