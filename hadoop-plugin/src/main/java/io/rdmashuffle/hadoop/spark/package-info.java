/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The NodeManager's Spark service (Spark on YARN with dynamic allocation): Spark's own external
 * shuffle handler and beside it a node runtime serving the registered executors' map outputs, its
 * settings read from {@code yarn-site.xml} ({@link io.rdmashuffle.hadoop.spark.SparkServiceConfig})
 * and its recovery state.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.hadoop, io.rdmashuffle.mapoutput,
 * io.rdmashuffle.node, io.rdmashuffle.serve, io.rdmashuffle.spark. A leaf of the plugin: only the
 * {@code conf} generator reads its declarations; the core, the Spark plugin and the other Hadoop
 * packages must not import it.
 */
package io.rdmashuffle.hadoop.spark;
