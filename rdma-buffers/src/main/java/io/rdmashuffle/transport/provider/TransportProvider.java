/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.provider;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;

/**
 * Knows whether one transport can run here and starts it. Implemented by each transport; the node
 * holds the list of them and picks one (the SPI names none).
 */
public interface TransportProvider {
  TransportKind kind();

  /**
   * Probes this node (native library, devices, limits). Cheap after the first call: providers cache
   * what does not depend on {@code conf}.
   */
  Availability probe(RdmaConf conf);

  /**
   * Probes this node for a process that may pin {@code pinned} (a transport that pins registered
   * memory checks the memlock limit against it). The default ignores it.
   */
  default Availability probe(RdmaConf conf, PinnedMemory pinned) {
    return probe(conf);
  }

  /**
   * Starts the transport on the context's connection server, for a process that may pin {@code
   * pinned} (a transport that does not pin ignores it). Once started, the transport owns the
   * server.
   *
   * @throws TransportStartException when it can't start; the message says why (the server is left
   *     to the caller)
   */
  Transport start(TransportContext context, PinnedMemory pinned) throws TransportStartException;
}
