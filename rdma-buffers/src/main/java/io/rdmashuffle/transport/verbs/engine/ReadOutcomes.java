/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.LocalSideException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.engine.ListenerCalls;

/**
 * Tells READ listeners how their READs ended, counting each outcome; a listener that throws is
 * logged and counted as a listener error (never as the engine's). Also names the failures the
 * engine reports. Stateless apart from the counters: any thread.
 */
final class ReadOutcomes {

  private final TransportMetrics metrics;

  ReadOutcomes(TransportMetrics metrics) {
    this.metrics = metrics;
  }

  void complete(ReadOp op, long latencyNanos) {
    metrics.readCompleted(op.length(), latencyNanos);
    deliver(op, null);
  }

  void fail(ReadOp op, TransportException e) {
    metrics.failure(e.kind());
    deliver(op, e);
  }

  private void deliver(ReadOp op, TransportException failure) {
    ListenerCalls.deliver(op, failure, metrics);
  }

  /**
   * The failure of a READ to {@code peer} that completed with {@code status} (not success): the
   * peer refused it, this side's own device did (a local error: never the peer's fault), or the
   * connection broke.
   */
  static TransportException failureOf(int status, PeerAddress peer, ReadOp op) {
    if (status == Completions.REM_ACCESS_ERR || status == Completions.REM_INV_REQ_ERR) {
      return new RemoteAccessException(RemoteAccessException.Reason.UNSPECIFIED, peer, op);
    }
    if (Completions.local(status)) {
      return new LocalSideException(
          "this side's device refused the READ: " + Completions.statusName(status), peer, op, null);
    }
    return new ConnectionLostException(
        "READ completed with " + Completions.statusName(status), peer, op, null);
  }

  /** A READ ended because its channel did. */
  static TransportException lost(VerbsReadChannel ch, ReadOp op, TransportException cause) {
    return new ConnectionLostException(
        "connection ended with the READ in flight", ch.peer(), op, cause);
  }
}
