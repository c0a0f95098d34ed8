/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.config.ConfigSchema;

/** The core's settings under Spark's prefix, as the tests of the core write them. */
public final class TestSchema {
  private TestSchema() {}

  public static final ConfigSchema SPARK_KEYS = ConfigSchema.core("Spark", "spark.shuffle.rdma.");
  public static final ConfigSchema HADOOP_KEYS =
      ConfigSchema.core("MapReduce", "mapreduce.shuffle.rdma.");
}
