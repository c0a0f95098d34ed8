/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import java.io.IOException;

/**
 * A map output exists but this process can't serve it now: its own limits, or the transport refused
 * to register it. Never the map's fault, so never a reason to re-run it.
 */
public final class UnavailableException extends IOException {
  private static final long serialVersionUID = 1L;

  public UnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
