/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * What Spark's executors (the Spark plugin) and rdma-shuffle's Spark service in the NodeManager
 * (the Hadoop plugin) must agree on and the engine-neutral core must not know: the transport secret
 * derived from Spark's own, and the node service's port. Names no Spark class.
 *
 * <p>May import: io.rdmashuffle.config. The core ({@code rdma-buffers}) must not import it; only
 * the Spark plugin and the NodeManager's Spark service ({@code hadoop.spark}) do.
 */
package io.rdmashuffle.spark;
