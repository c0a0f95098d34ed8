/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.provider.TransportContext;

/**
 * Starts the verbs transport. Implemented inside the DiSNI class loader ({@code disni} package),
 * called from outside it through this parent-defined type.
 */
public interface VerbsStarter {
  Transport start(TransportContext context) throws TransportStartException;
}
