/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.provider;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.server.ConnectionServer;
import java.util.Objects;

/**
 * What a transport needs to start: the settings, the application secrets it serves and proves, the
 * host it advertises (the {@code host} setting, else the process's default), the counters to count
 * into, and the process's connection server, which owns the TCP port every transport serves on.
 *
 * <p>The server is made before the transport, by whoever starts it (the node's transport selector,
 * the one place that makes servers). A transport that starts owns it from then on and closes it
 * with itself; a transport that fails to start leaves it to its maker, which may start another
 * transport on it.
 */
public record TransportContext(
    RdmaConf conf,
    ApplicationSecrets secrets,
    String host,
    TransportMetrics metrics,
    ConnectionServer server) {

  public TransportContext {
    Objects.requireNonNull(conf, "conf");
    Objects.requireNonNull(secrets, "secrets");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(server, "server");
  }
}
