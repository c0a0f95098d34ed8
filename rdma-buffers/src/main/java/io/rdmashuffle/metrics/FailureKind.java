/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.metrics;

/** The types of transport failure; counters are kept per kind. */
public enum FailureKind {
  /** The peer could not be reached or did not answer the connection setup in time. */
  UNREACHABLE,
  /** The handshake failed: one side could not prove the application secret. */
  AUTHENTICATION,
  /** The peer refused a READ: bad rkey, out of bounds, deregistered, foreign application. */
  REMOTE_ACCESS,
  /** A READ did not complete within the read timeout. */
  TIMEOUT,
  /** The connection broke (peer died, closed, reset) with READs in flight. */
  CONNECTION_LOST,
  /** The peer refused a call: unknown service, busy, or the service's own refusal. */
  CALL_REFUSED,
  /**
   * This process's own side failed: it could not set up its side of a connection (closed transport,
   * lost device, no socket, RDMA-CM id, queue pair or completion queue room), or its own device
   * refused a READ's buffer (a local length, protection or access error). Not the peer's fault.
   */
  LOCAL_SIDE
}
