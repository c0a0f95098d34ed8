/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The tcp transport: READs as request and response frames on connections of the connection server,
 * served from registered regions on its I/O threads; its provider, registrar and region table.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.memory, io.rdmashuffle.metrics,
 * io.rdmashuffle.transport, io.rdmashuffle.transport.engine, io.rdmashuffle.transport.handshake,
 * io.rdmashuffle.transport.provider, io.rdmashuffle.transport.server. An implementation: only
 * {@code node} (the transport selector) may import it.
 */
package io.rdmashuffle.transport.tcp;
