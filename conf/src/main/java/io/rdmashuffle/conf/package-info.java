/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Generates the operator templates ({@code conf/}) and {@code docs/configuration.md} from every
 * engine's setting declarations ({@link io.rdmashuffle.conf.OperatorFiles}), and {@code
 * docs/metrics.md} and MapReduce's counter display names from the counters' declarations ({@link
 * io.rdmashuffle.conf.MetricsFiles}); a build-time tool, in no plugin jar.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.counters, io.rdmashuffle.fetch,
 * io.rdmashuffle.hadoop, io.rdmashuffle.hadoop.reduce, io.rdmashuffle.hadoop.spark,
 * io.rdmashuffle.metrics, io.rdmashuffle.serve, org.apache.spark.shuffle.rdma. The top floor:
 * nothing may import it.
 */
package io.rdmashuffle.conf;
