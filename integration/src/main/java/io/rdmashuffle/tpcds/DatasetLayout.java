/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds;

import java.math.BigDecimal;

/**
 * Where a generated TPC-DS dataset lives: {@code DATA/sfSCALE/TABLE/} (Parquet), and the marker
 * {@code DATA/sfSCALE/_TPCDS_DATASET} written last, so a dataset without it is incomplete and is
 * generated again. The same layout on a local folder, HDFS or S3.
 */
public final class DatasetLayout {
  /** Written after the last table: its presence means the dataset can be reused. */
  public static final String MARKER = "_TPCDS_DATASET";

  /** The generator, recorded in the marker. */
  public static final String GENERATOR = "io.trino.tpcds:tpcds:1.4";

  private DatasetLayout() {}

  /** {@code 0.1} -> {@code "0.1"}, {@code 1.0} -> {@code "1"}. */
  public static String scaleName(double scale) {
    if (!(scale > 0)) {
      throw new IllegalArgumentException("scale=" + scale + ": must be positive");
    }
    return BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
  }

  public static String dir(String data, double scale) {
    return Storage.child(data, "sf" + scaleName(scale));
  }

  public static String table(String data, double scale, String table) {
    return Storage.child(dir(data, scale), table);
  }

  public static String marker(String data, double scale) {
    return Storage.child(dir(data, scale), MARKER);
  }
}
