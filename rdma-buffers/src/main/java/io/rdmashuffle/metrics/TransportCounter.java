/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.metrics;

import io.rdmashuffle.counters.CounterDescriptor;

/**
 * The counters of one process's transport ({@link TransportMetrics}), each declared once with its
 * stable id (100..199), exported name and label. The per-kind families name their {@link
 * FailureKind} or {@link Refusal}: each kind has exactly one counter.
 */
public enum TransportCounter implements CounterDescriptor {
  BYTES_READ(100, "bytesRead", "Bytes this process READ from peers"),
  READS_COMPLETED(101, "readsCompleted", "READs this process completed"),
  BYTES_SERVED(102, "bytesServed", "Bytes peers READ from this process (tcp transport)"),
  READS_SERVED(103, "readsServed", "READs this process served to peers (tcp transport)"),
  FAILURES_UNREACHABLE(
      110,
      "failures.unreachable",
      FailureKind.UNREACHABLE,
      "Peers that could not be reached or did not complete the connection setup in time"),
  FAILURES_AUTHENTICATION(
      111,
      "failures.authentication",
      FailureKind.AUTHENTICATION,
      "Handshakes that failed: one side could not prove the application secret"),
  FAILURES_REMOTE_ACCESS(
      112,
      "failures.remoteAccess",
      FailureKind.REMOTE_ACCESS,
      "READs the peer refused (bad rkey, out of bounds, deregistered, foreign application)"),
  FAILURES_TIMEOUT(
      113, "failures.timeout", FailureKind.TIMEOUT, "READs not completed within read.timeout"),
  FAILURES_CONNECTION_LOST(
      114,
      "failures.connectionLost",
      FailureKind.CONNECTION_LOST,
      "Connections that broke with READs in flight"),
  FAILURES_CALL_REFUSED(
      115,
      "failures.callRefused",
      FailureKind.CALL_REFUSED,
      "Calls the peer refused (unknown service, busy, or the service's own refusal)"),
  FAILURES_LOCAL_SIDE(
      116,
      "failures.localSide",
      FailureKind.LOCAL_SIDE,
      "Connections this process could not set up, and READs its own device refused (its side)"),
  SERVER_HANDSHAKES(
      120,
      "server.handshakes",
      Refusal.HANDSHAKES,
      "Connections refused: too many in their handshake (server.maxHandshakes)"),
  SERVER_HANDSHAKES_PER_SOURCE(
      121,
      "server.handshakesPerSource",
      Refusal.HANDSHAKES_PER_SOURCE,
      "Connections refused: too many in their handshake from one address"),
  SERVER_HANDSHAKE_FAILED(
      122,
      "server.handshakeFailed",
      Refusal.HANDSHAKE_FAILED,
      "Connections dropped: bad, unknown, wrong-secret or replayed handshake"),
  SERVER_HANDSHAKE_TIMEOUT(
      123,
      "server.handshakeTimeout",
      Refusal.HANDSHAKE_TIMEOUT,
      "Connections dropped: no handshake within connect.timeout"),
  SERVER_CONNECTIONS(
      124,
      "server.connections",
      Refusal.CONNECTIONS,
      "Connections refused: too many authenticated ones (server.maxConnections)"),
  SERVER_CONNECTIONS_PER_SOURCE(
      125,
      "server.connectionsPerSource",
      Refusal.CONNECTIONS_PER_SOURCE,
      "Connections refused: too many authenticated ones from one address"),
  SERVER_CONNECTIONS_PER_APPLICATION(
      126,
      "server.connectionsPerApplication",
      Refusal.CONNECTIONS_PER_APPLICATION,
      "Connections refused: too many authenticated ones of one application"),
  SERVER_READ_REFUSED(
      127,
      "server.readRefused",
      Refusal.READ_REFUSED,
      "READs refused: an unknown or stale rkey, another application's region, out of bounds"),
  SERVER_FRAME_REJECTED(
      128,
      "server.frameRejected",
      Refusal.FRAME_REJECTED,
      "Connections dropped: a frame failed its authentication tag or was malformed"),
  SERVER_IDLE(129, "server.idle", Refusal.IDLE, "Connections closed: idle for server.idleTimeout"),
  SERVER_SEND_TIMEOUT(
      130,
      "server.sendTimeout",
      Refusal.SEND_TIMEOUT,
      "Connections closed: a send made no progress for server.sendTimeout"),
  SERVER_WITHDRAWN(
      131,
      "server.withdrawn",
      Refusal.WITHDRAWN,
      "Sends dropped: held a withdrawn region longer than server.withdrawTimeout"),
  SERVER_CALLS_BUSY(
      132,
      "server.callsBusy",
      Refusal.CALLS_BUSY,
      "Calls answered busy: the call workers' queue was full"),
  SERVER_ACCEPT_FAILED(
      133, "server.acceptFailed", Refusal.ACCEPT_FAILED, "Connections whose accept failed"),
  SERVER_CONNECTION_FAILED(
      134,
      "server.connectionFailed",
      Refusal.CONNECTION_FAILED,
      "Connections closed on an unexpected error of an I/O thread"),
  SERVER_LOCATE_UNAUTHENTICATED(
      135,
      "server.locateUnauthenticated",
      Refusal.LOCATE_UNAUTHENTICATED,
      "Locates over MapReduce's HTTP port refused: unknown job, wrong or missing hash"),
  READ_LATENCY_P50_MICROS(140, "readLatencyP50Micros", "Median READ latency (µs, bucket bound)"),
  READ_LATENCY_P99_MICROS(
      141, "readLatencyP99Micros", "99th percentile READ latency (µs, bucket bound)"),
  REGISTERED_BYTES(150, "registeredBytes", "Bytes registered with the transport now"),
  REGISTERED_REGIONS(151, "registeredRegions", "Regions registered with the transport now"),
  REGISTERED_PINNED_BYTES(
      152, "registeredPinnedBytes", "Registered bytes pinned in memory now (verbs)"),
  REGISTERED_ON_DEMAND_BYTES(
      153, "registeredOnDemandBytes", "Registered bytes paged on demand now (verbs ODP)"),
  TRANSPORT_FALLBACKS(
      160, "transportFallbacks", "Times a preferred transport could not run and another was used"),
  LISTENER_ERRORS(161, "listenerErrors", "READ listeners that threw on a transport thread"),
  ENGINE_ERRORS(162, "engineErrors", "Rounds the transport's own engine failed (it goes on)"),
  READ_TARGETS_LEAKED(
      163,
      "readTargetsLeaked",
      "READ targets never released because the device might still write into them"),
  QUEUE_PAIRS_LEAKED(164, "queuePairsLeaked", "Queue pairs that could not be destroyed"),
  SERVED_PROBES_ANSWERED(
      165, "servedProbesAnswered", "Liveness probes a served queue pair's reader answered"),
  SERVED_PEERS_LOST(
      166, "servedPeersLost", "Served queue pairs dropped: their reader no longer answered");

  private final Declaration declaration;
  private final FailureKind failure;
  private final Refusal refusal;

  TransportCounter(int id, String exportName, String label) {
    this(id, exportName, null, null, label);
  }

  TransportCounter(int id, String exportName, FailureKind failure, String label) {
    this(id, exportName, failure, null, label);
  }

  TransportCounter(int id, String exportName, Refusal refusal, String label) {
    this(id, exportName, null, refusal, label);
  }

  TransportCounter(int id, String exportName, FailureKind failure, Refusal refusal, String label) {
    this.declaration = new Declaration(id, exportName, label);
    this.failure = failure;
    this.refusal = refusal;
  }

  @Override
  public Declaration declaration() {
    return declaration;
  }

  /** The failure kind this counter counts, or null. */
  public FailureKind failure() {
    return failure;
  }

  /** The refusal this counter counts, or null. */
  public Refusal refusal() {
    return refusal;
  }

  private static final TransportCounter[] BY_FAILURE =
      new TransportCounter[FailureKind.values().length];
  private static final TransportCounter[] BY_REFUSAL =
      new TransportCounter[Refusal.values().length];

  static {
    for (TransportCounter c : values()) {
      if (c.failure != null) {
        BY_FAILURE[c.failure.ordinal()] = c;
      }
      if (c.refusal != null) {
        BY_REFUSAL[c.refusal.ordinal()] = c;
      }
    }
  }

  /** The counter of failures of {@code kind}. */
  public static TransportCounter of(FailureKind kind) {
    return BY_FAILURE[kind.ordinal()];
  }

  /** The counter of refusals for {@code why}. */
  public static TransportCounter of(Refusal why) {
    return BY_REFUSAL[why.ordinal()];
  }
}
