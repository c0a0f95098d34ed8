/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The one-sided READ SPI every transport implements and both readers use: {@link
 * io.rdmashuffle.transport.Transport}, read channels and their bounded admission, the connection
 * pool, peer addresses, call services and the exceptions that name a failure's cause.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.memory, io.rdmashuffle.metrics. It names
 * none of its implementations: its subpackages import it, it imports none of them. {@code config},
 * {@code memory} and {@code metrics} must not import it.
 */
package io.rdmashuffle.transport;
