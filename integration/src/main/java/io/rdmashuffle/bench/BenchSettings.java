/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import io.rdmashuffle.config.ConfigSchema;

/** The core's settings under Spark's prefix: what the transport benchmarks configure. */
final class BenchSettings {
  private BenchSettings() {}

  static final ConfigSchema SCHEMA = ConfigSchema.core("benchmarks", "spark.shuffle.rdma.");
}
