/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.server.Connection;
import io.rdmashuffle.transport.server.ConnectionService;
import io.rdmashuffle.transport.server.Session;

/**
 * The software NIC of the tcp transport: the connection server hands it every connection that
 * proved its secret for {@code READ}, and it serves each with a {@link ReadSession} straight from
 * the transport's region table. No shuffle code runs here. Owned by {@link TcpTransport}.
 */
final class TcpReadService implements ConnectionService {
  private final TcpRegionTable table;
  private final TransportMetrics metrics;
  private final boolean sendfile;
  private final long withdrawTimeoutNanos;

  TcpReadService(
      TcpRegionTable table, TransportMetrics metrics, boolean sendfile, long withdrawTimeoutNanos) {
    this.table = table;
    this.metrics = metrics;
    this.sendfile = sendfile;
    this.withdrawTimeoutNanos = withdrawTimeoutNanos;
  }

  @Override
  public Session open(Connection connection, Handshake.Result handshake) {
    return new ReadSession(this, connection, handshake.application(), handshake.clientToServer());
  }

  TcpRegionTable table() {
    return table;
  }

  TransportMetrics metrics() {
    return metrics;
  }

  boolean sendfile() {
    return sendfile;
  }

  long withdrawTimeoutNanos() {
    return withdrawTimeoutNanos;
  }
}
