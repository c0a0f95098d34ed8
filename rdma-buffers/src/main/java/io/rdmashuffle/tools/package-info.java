/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Engine-neutral pieces of the command-line runners ({@code bin/rdma-shuffle}): the command line
 * ({@link io.rdmashuffle.tools.Cli}), the doctor that checks settings and transports, the probe of
 * a node service's handshake, and progress lines.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.node, io.rdmashuffle.transport.handshake,
 * io.rdmashuffle.transport.provider. It sits beside the engine adapters, above {@code node}: no
 * other core package may import it; the Spark adapter does (its doctor).
 */
package io.rdmashuffle.tools;
