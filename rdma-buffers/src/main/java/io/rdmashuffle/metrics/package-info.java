/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The counters of one process's transport ({@link io.rdmashuffle.metrics.TransportMetrics}): bytes
 * and READs, failures by kind, refusals by bound, READ latency; the engine adapters read its
 * snapshot into Spark metrics and Hadoop counters; each counter is declared once in {@link
 * io.rdmashuffle.metrics.TransportCounter}.
 *
 * <p>May import: io.rdmashuffle.counters, io.rdmashuffle.memory. It declares its counters with
 * {@code counters} and reads registered memory's accounting from {@code memory}; {@code config} and
 * {@code memory} must not import it (they sit below it).
 */
package io.rdmashuffle.metrics;
