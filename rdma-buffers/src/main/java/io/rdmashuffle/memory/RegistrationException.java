/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.io.IOException;

/** A transport refused to register memory (memlock limit, device error, closed transport). */
public final class RegistrationException extends IOException {
  private static final long serialVersionUID = 1L;

  public RegistrationException(String message) {
    super(message);
  }

  public RegistrationException(String message, Throwable cause) {
    super(message, cause);
  }
}
