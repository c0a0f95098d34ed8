/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.verbs.VerbsStarter;

/** Entry point into the DiSNI class loader: built there by name, called through the interface. */
public final class VerbsTransportStarter implements VerbsStarter {
  @Override
  public Transport start(TransportContext context) throws TransportStartException {
    return VerbsTransport.start(context);
  }
}
