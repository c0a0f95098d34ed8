/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import io.rdmashuffle.spark.SparkNodeService;
import io.rdmashuffle.tools.Doctor;

/**
 * The plugin jar's main class: {@code spark-submit <the jar>} (or {@code java -jar}) runs the
 * {@link Doctor} with Spark's settings ({@code spark.shuffle.rdma.*}). Touches no Spark class.
 */
public final class SparkDoctor {
  private SparkDoctor() {}

  public static void main(String[] args) {
    System.exit(
        Doctor.run(SparkConfig.SCHEMA, SparkNodeService.PORT, args, System.out, System.err));
  }
}
