/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.spark.SparkNodeService;
import java.util.List;

/**
 * What the Spark service in the NodeManager reads from yarn-site.xml under Spark's prefix ({@code
 * spark.shuffle.rdma.}): the core's settings and the node service port. Spark's own reader settings
 * ({@code read.local} and the like) are the executors'. Touches no Spark or Hadoop class, so the
 * operator templates can be generated without either.
 */
public final class SparkServiceConfig {
  private SparkServiceConfig() {}

  public static final ConfigSchema SCHEMA =
      ConfigSchema.of(
          "Spark NodeManager service", "spark.shuffle.rdma.", List.of(SparkNodeService.PORT));
}
