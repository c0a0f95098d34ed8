/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The verbs transport's side that the application's class loader defines: its provider and starter,
 * the loading of DiSNI and our native library into their own class loader ({@link
 * io.rdmashuffle.transport.verbs.NativeLibrary}), RDMA device discovery, the RDMA-CM announcement
 * service and the liveness probe schedule.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.transport,
 * io.rdmashuffle.transport.provider, io.rdmashuffle.transport.server. An implementation: only
 * {@code node} (the transport selector) and {@code transport.verbs.disni} may import it.
 */
package io.rdmashuffle.transport.verbs;
