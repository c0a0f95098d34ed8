/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Memory the transport reads from and into: registered regions and files, pooled registered
 * buffers, reference counting ({@link io.rdmashuffle.memory.RefCounted}, {@link
 * io.rdmashuffle.memory.CountedResource}), leak detection and the accounting of registered bytes.
 *
 * <p>May import: none. The ground floor beside {@code config}: any package above may list it, and
 * it knows no transport, no serving and no reading side.
 */
package io.rdmashuffle.memory;
