/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * MapReduce's serving side in the NodeManager: {@link
 * io.rdmashuffle.hadoop.service.RdmaShuffleHandler} beside the stock shuffle handler, the map
 * outputs request handler on its HTTP port, and {@code file.out}/{@code file.out.index} as the
 * core's output source.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.hadoop, io.rdmashuffle.mapoutput,
 * io.rdmashuffle.metrics, io.rdmashuffle.node, io.rdmashuffle.serve. A leaf: nothing may import it,
 * and it must not import the reduce side ({@code hadoop.reduce}).
 */
package io.rdmashuffle.hadoop.service;
