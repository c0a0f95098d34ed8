/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * What both sides of the Hadoop plugin share: MapReduce's settings and schema ({@link
 * io.rdmashuffle.hadoop.MapReduceConfig}), reading them from a Hadoop {@code Configuration}, the
 * jobs' transport secrets, the map outputs request, the node service's address and the Hadoop
 * release differences.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.metrics, io.rdmashuffle.node. Engine
 * adapter: no package of the core ({@code rdma-buffers}), of {@code spark-common} or of the Spark
 * plugin may import it.
 */
package io.rdmashuffle.hadoop;
