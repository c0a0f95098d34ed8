/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The one {@link io.rdmashuffle.transport.server.ConnectionServer} of a process: its accept and I/O
 * loops, admission caps, deadlines, the connections it serves and opens, and calls (frames,
 * workers, sessions, the call client).
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.memory, io.rdmashuffle.metrics,
 * io.rdmashuffle.transport, io.rdmashuffle.transport.engine, io.rdmashuffle.transport.handshake. It
 * names no transport implementation: {@code transport.tcp}, {@code transport.verbs} and {@code
 * transport.provider} build on it, and the transport SPI, {@code transport.engine} and {@code
 * transport.handshake} must not import it.
 */
package io.rdmashuffle.transport.server;
