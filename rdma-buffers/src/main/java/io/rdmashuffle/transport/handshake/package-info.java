/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The authentication handshake every connection of the connection server runs first: its byte
 * layout ({@link io.rdmashuffle.transport.handshake.HandshakeLayout}), the two sides' state
 * machines, the nonces a server remembers, the purposes a connection may name, the applications'
 * secrets, and the per-frame MACs that the established session key gives both directions. It
 * imports nothing of rdma-shuffle: the transport, the connection server and the tools build on it.
 *
 * <p>May import: none. The transport SPI, {@code config}, {@code memory} and {@code metrics} must
 * not import it; the connection server, {@code transport.provider}, the transports, {@code serve},
 * {@code node}, {@code tools} and the engine adapters (for the applications' secrets) do.
 */
package io.rdmashuffle.transport.handshake;
