/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

/**
 * What an authenticated connection is for, named in the handshake and covered by both proofs: after
 * the handshake the connection server hands the connection to that purpose's service.
 */
public enum Purpose {
  /** One-sided READs of registered regions (the tcp transport's responder). */
  READ(1),
  /** Small request/answer calls to the services a process serves calls of. */
  CALL(2);

  private final int code;

  Purpose(int code) {
    this.code = code;
  }

  /** The byte that names this purpose on the wire. */
  public int code() {
    return code;
  }

  /** The purpose named by {@code code}, or null when no purpose has that code. */
  public static Purpose of(int code) {
    for (Purpose p : values()) {
      if (p.code == code) {
        return p;
      }
    }
    return null;
  }
}
