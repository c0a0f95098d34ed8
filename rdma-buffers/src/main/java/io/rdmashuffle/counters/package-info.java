/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * How a counter is declared once ({@link io.rdmashuffle.counters.CounterDescriptor}: a stable id,
 * the name it is exported under, a one-line label) and the lock-free storage that iterates the
 * declarations ({@link io.rdmashuffle.counters.CounterSet}). Each group of counters is an enum of
 * its own package (the transport's, the serving side's, the block readers', each engine's); the
 * Spark metrics source, the Hadoop counters' display names and {@code docs/metrics.md} are read
 * from those enums.
 *
 * <p>May import: none. The ground floor beside {@code config} and {@code memory}: any package above
 * may list it, and it knows no counter of its own.
 */
package io.rdmashuffle.counters;
