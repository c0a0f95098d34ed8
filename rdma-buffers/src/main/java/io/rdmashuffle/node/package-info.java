/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The composition root of a process: {@link io.rdmashuffle.node.NodeRuntime} brings up transport,
 * serving side and reading side in one place; {@link io.rdmashuffle.node.TransportSelector} holds
 * the list of transports and makes the connection server; {@link io.rdmashuffle.node.ServingBounds}
 * derives the serving bounds from the host.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.fetch, io.rdmashuffle.mapoutput,
 * io.rdmashuffle.memory, io.rdmashuffle.metrics, io.rdmashuffle.serve, io.rdmashuffle.transport,
 * io.rdmashuffle.transport.handshake, io.rdmashuffle.transport.provider,
 * io.rdmashuffle.transport.server, io.rdmashuffle.transport.tcp, io.rdmashuffle.transport.verbs.
 * The only core package that names the transport implementations; only the engine adapters and
 * {@code tools} may import it, no other core package.
 */
package io.rdmashuffle.node;
