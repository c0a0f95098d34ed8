/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.provider.Availability;
import io.rdmashuffle.transport.provider.PinnedMemory;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.provider.TransportProvider;
import java.util.List;

/** The tcp transport needs nothing but sockets: always available. */
public final class TcpTransportProvider implements TransportProvider {
  @Override
  public TransportKind kind() {
    return TransportKind.TCP;
  }

  @Override
  public Availability probe(RdmaConf conf) {
    return Availability.available(List.of("software one-sided READs over TCP sockets"));
  }

  @Override
  public Transport start(TransportContext context, PinnedMemory pinned)
      throws TransportStartException {
    return TcpTransport.start(context);
  }
}
