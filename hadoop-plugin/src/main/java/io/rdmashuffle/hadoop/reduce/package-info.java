/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * MapReduce's reading side in a reduce task: {@link
 * io.rdmashuffle.hadoop.reduce.RdmaShuffleConsumer} and {@link
 * io.rdmashuffle.hadoop.reduce.RdmaFetcher}, which locate over the stock shuffle port's HTTP and
 * READ through the core's {@code SegmentFetcher} into a {@link
 * io.rdmashuffle.hadoop.reduce.SegmentInputStream}; the HTTP fallback, retries and counters.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.counters, io.rdmashuffle.fetch,
 * io.rdmashuffle.hadoop, io.rdmashuffle.mapoutput, io.rdmashuffle.memory, io.rdmashuffle.metrics,
 * io.rdmashuffle.node, io.rdmashuffle.transport, io.rdmashuffle.transport.handshake. A leaf:
 * nothing may import it (but the {@code conf} generator, which reads {@code RdmaShuffleCounter}'s
 * declarations), and it must not import the NodeManager's packages ({@code hadoop.service}, {@code
 * hadoop.spark}).
 */
package io.rdmashuffle.hadoop.reduce;
