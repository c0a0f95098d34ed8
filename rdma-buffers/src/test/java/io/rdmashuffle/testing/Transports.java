/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.server.ConnectionServer;
import io.rdmashuffle.transport.tcp.TcpTransport;
import java.io.IOException;

/** Transports for tests that need the tcp transport's own type, whatever the settings choose. */
public final class Transports {
  private Transports() {}

  /**
   * A tcp transport on a connection server of its own, as the node's selector starts one: bound to
   * the {@code host} setting (else {@code defaultHost}) and the {@code port} setting; the transport
   * owns the server.
   */
  public static TcpTransport tcp(
      RdmaConf conf, ApplicationSecrets secrets, String defaultHost, TransportMetrics metrics)
      throws TransportStartException {
    String configured = conf.get(RdmaShuffleConfig.HOST);
    String host = configured.isEmpty() ? defaultHost : configured;
    ConnectionServer server;
    try {
      server = ConnectionServer.start(conf, secrets, metrics, host);
    } catch (IOException e) {
      throw new TransportStartException("could not listen: " + e.getMessage(), e);
    }
    try {
      return TcpTransport.start(new TransportContext(conf, secrets, host, metrics, server));
    } catch (TransportStartException | RuntimeException e) {
      server.close();
      throw e;
    }
  }
}
