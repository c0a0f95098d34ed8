/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/** Runs the differential cases and compares results, case by case. */
final class Differential {
  private static Map<String, List<String>> reference;

  private Differential() {}

  /** The stock shuffle's results (computed once per test JVM, in local[2]). */
  static synchronized Map<String, List<String>> reference() {
    if (reference == null) {
      if (SparkSession.getActiveSession().isDefined()
          || SparkSession.getDefaultSession().isDefined()) {
        throw new IllegalStateException("compute the reference before starting an application");
      }
      Path work = ItCluster.workDir("reference");
      SparkSession s = ItCluster.start(ItCluster.reference("reference", work));
      try {
        reference = DifferentialCases.runAll(s);
      } finally {
        stop(s);
      }
    }
    return reference;
  }

  static void stop(SparkSession s) {
    s.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  /** Runs every case in {@code s} and asserts each result equals the stock shuffle's. */
  static void assertSameAsStock(SparkSession s) {
    Map<String, List<String>> expected = reference();
    Map<String, List<String>> actual = DifferentialCases.runAll(s);
    for (String name : expected.keySet()) {
      assertSame(name, expected.get(name), actual.get(name));
    }
  }

  static void assertSame(String name, List<String> expected, List<String> actual) {
    assertNotNull(actual, name + ": no result");
    for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
      if (!expected.get(i).equals(actual.get(i))) {
        fail(
            name
                + ": first difference at "
                + i
                + ": stock "
                + expected.get(i)
                + ", ours "
                + actual.get(i));
      }
    }
    assertEquals(expected.size(), actual.size(), name + ": result sizes differ");
  }

  static SparkSession start(SparkConf conf) {
    return ItCluster.start(conf);
  }
}
