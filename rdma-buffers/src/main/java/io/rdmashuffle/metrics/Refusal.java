/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.metrics;

/**
 * Why the connection server refused or dropped a connection or a call; each is counted ({@code
 * server.*} in the transport's counters) and logged, at most every few seconds per kind.
 */
public enum Refusal {
  /** Too many connections in their handshake, in total ({@code server.maxHandshakes}). */
  HANDSHAKES,
  /**
   * Too many connections in their handshake from one address ({@code
   * server.maxHandshakesPerSource}).
   */
  HANDSHAKES_PER_SOURCE,
  /**
   * The handshake failed: bad magic or version, malformed, unknown application, wrong secret,
   * replayed.
   */
  HANDSHAKE_FAILED,
  /** No handshake within {@code connect.timeout}. */
  HANDSHAKE_TIMEOUT,
  /** Too many authenticated connections in total ({@code server.maxConnections}). */
  CONNECTIONS,
  /**
   * Too many authenticated connections from one address ({@code server.maxConnectionsPerSource}).
   */
  CONNECTIONS_PER_SOURCE,
  /**
   * Too many authenticated connections of one application ({@code
   * server.maxConnectionsPerApplication}).
   */
  CONNECTIONS_PER_APPLICATION,
  /**
   * A READ of an authenticated peer named what it may not read (an unknown or stale rkey, another
   * application's region, bytes outside the region): answered with that error, nothing of the
   * region sent, the connection kept; counted, not logged (the reader is told).
   */
  READ_REFUSED,
  /** A frame after the handshake failed its authentication tag or was malformed. */
  FRAME_REJECTED,
  /** Nothing happened on the connection for {@code server.idleTimeout}. */
  IDLE,
  /** A send made no progress for {@code server.sendTimeout}. */
  SEND_TIMEOUT,
  /** A send held a withdrawn region for longer than {@code server.withdrawTimeout}. */
  WITHDRAWN,
  /** A call found the call workers' queue full (answered: busy, retry later). */
  CALLS_BUSY,
  /** Accepting a connection failed (any error, including running out of memory or descriptors). */
  ACCEPT_FAILED,
  /** An I/O thread hit an unexpected error while handling a connection (closed). */
  CONNECTION_FAILED,
  /**
   * A locate over MapReduce's shuffle port (HTTP) for an unknown job or with a wrong or missing
   * hash: answered 401 alike, logged at most once per interval.
   */
  LOCATE_UNAUTHENTICATED
}
