/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.transport.TransportStartException;

/**
 * Two processes' runtimes in one JVM on loopback, for the reading core's tests: a server that
 * serves {@code published} (and reads), with {@code application} admitted, and a reader that knows
 * the application's secret. Closed reader first.
 */
public final class ServerAndReader implements AutoCloseable {
  public final NodeRuntime server;
  public final NodeRuntime client;

  public ServerAndReader(
      RdmaConf conf, PublishedOutputs published, String application, byte[] secret)
      throws TransportStartException {
    server =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(conf)
                .defaultHost("127.0.0.1")
                .serving(published)
                .reading(true));
    NodeRuntime reader = null;
    try {
      server.catalog().admit(application, secret);
      reader =
          NodeRuntime.start(
              new NodeRuntime.Context().conf(conf).defaultHost("127.0.0.1").reading(true));
      reader.secrets().put(application, secret);
    } catch (TransportStartException | RuntimeException e) {
      server.close();
      throw e;
    }
    client = reader;
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      server.close();
    }
  }
}
