/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.spark;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.ConfigType;

/**
 * The Spark node service: rdma-shuffle's Spark service in each NodeManager ({@code spark_shuffle},
 * with {@code spark.shuffle.service.enabled=true}), which serves the map outputs of its node's
 * executors whether or not they still run. Its port is read by the executors ({@code SparkConfig})
 * and by the service itself (under Spark's prefix, from {@code yarn-site.xml}): declared here once,
 * in the one module both sides use.
 */
public final class SparkNodeService {
  private SparkNodeService() {}

  /** Not one of the core's settings: only the Spark schemas list it. */
  public static final ConfigEntry<Integer> PORT =
      ConfigEntry.builder("nodeService.port", ConfigType.INT)
          .defaultValue(7340)
          .range(1, 65535)
          .doc(
              "With spark.shuffle.service.enabled=true (Spark on YARN with dynamic allocation):"
                  + " the TCP port of the connection server of rdma-shuffle's Spark service in"
                  + " each NodeManager (spark_shuffle). Executors name it as the owner of their"
                  + " map outputs, so reducers READ from the service whether or not the writing"
                  + " executor still runs; the service binds it. Set the same value in"
                  + " spark-defaults.conf and yarn-site.xml.")
          .build();
}
