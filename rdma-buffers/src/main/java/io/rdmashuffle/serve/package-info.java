/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The serving side: the {@link io.rdmashuffle.serve.OutputCatalog} (admission, registration on
 * commit or on request, bounds, leases, LRU, withdrawal), the engine SPI {@link
 * io.rdmashuffle.serve.OutputSource}, confined file opening, meta files and the locate and checksum
 * services that answer readers.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.counters, io.rdmashuffle.mapoutput,
 * io.rdmashuffle.memory, io.rdmashuffle.transport, io.rdmashuffle.transport.handshake. It reaches
 * the transport only through its SPI and the handshake's application secrets; the transport
 * packages, {@code mapoutput} and the floors below must not import it.
 */
package io.rdmashuffle.serve;
