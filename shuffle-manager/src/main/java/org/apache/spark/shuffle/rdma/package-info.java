/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The Spark plugin: {@link org.apache.spark.shuffle.rdma.RdmaShuffleManager}, its writer and
 * reader, the executor's node ({@link org.apache.spark.shuffle.rdma.SparkNode}), the read sources,
 * Spark's settings ({@link org.apache.spark.shuffle.rdma.SparkConfig}) and the shim over Spark's
 * lines. In Spark's package because it uses Spark's package-private API.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.counters, io.rdmashuffle.fetch,
 * io.rdmashuffle.mapoutput, io.rdmashuffle.memory, io.rdmashuffle.metrics, io.rdmashuffle.node,
 * io.rdmashuffle.serve, io.rdmashuffle.spark, io.rdmashuffle.tools, io.rdmashuffle.transport,
 * io.rdmashuffle.transport.handshake. Engine adapter: only the {@code conf} generator reads its
 * declarations; the core, {@code spark-common} and the Hadoop plugin must not import it.
 */
package org.apache.spark.shuffle.rdma;
