/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * What a transport implementation is given and builds on: its provider (probe and start), the
 * context it starts with (settings, secrets, counters and the process's connection server, which it
 * owns once started), and the code every transport shares on that server ({@link
 * io.rdmashuffle.transport.provider.ConnectionServerTransport}). Implemented by {@code
 * transport.tcp} and {@code transport.verbs}; the node's selector holds the list of providers, so
 * neither this package nor the transport SPI names an implementation.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.metrics, io.rdmashuffle.transport,
 * io.rdmashuffle.transport.handshake, io.rdmashuffle.transport.server. The transport SPI, {@code
 * transport.server} and {@code transport.engine} must not import it; the implementations, {@code
 * node} and {@code tools} do.
 */
package io.rdmashuffle.transport.provider;
