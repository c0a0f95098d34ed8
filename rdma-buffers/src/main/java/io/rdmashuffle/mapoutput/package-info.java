/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * What engines and processes exchange about a map output, as bytes: {@link
 * io.rdmashuffle.mapoutput.OutputId}, {@link io.rdmashuffle.mapoutput.PartitionTable}, {@link
 * io.rdmashuffle.mapoutput.OwnerMarker}, the locate, release and checksum requests and answers with
 * their *Layout classes, and {@link io.rdmashuffle.mapoutput.MetaFileLayout}.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.memory, io.rdmashuffle.transport. It uses
 * only the transport SPI's {@code PeerAddress}, never a transport implementation or the connection
 * server; the transport packages, {@code config}, {@code memory} and {@code metrics} must not
 * import it.
 */
package io.rdmashuffle.mapoutput;
