/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The full differential test on the Spark version the class path holds: run by the modules in
 * {@code spark-it/compat} (3.5, 4.0, 4.2), each with its own Spark in the driver and in the
 * executors' Spark home, and the one plugin jar built against 4.1.3.
 */
@Timeout(900)
class CrossVersionIT {
  @BeforeAll
  static void stockResultsFirst() {
    Differential.reference();
  }

  @Test
  void sameResultsAsTheStockShuffleOnThisSparkVersion() {
    Path work = ItCluster.workDir("cross-version");
    SparkSession s =
        Differential.start(
            ItCluster.localCluster("cross-version", work)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.shuffle.rdma.read.local", "false"));
    try {
      String expected = System.getProperty("rdma.it.sparkVersion");
      if (expected != null) {
        assertEquals(expected, s.version(), "the class path holds another Spark");
      }
      Differential.assertSameAsStock(s);
      JavaSparkContext sc = ItCluster.jsc(s);
      Map<String, Map<String, Long>> p = ItCluster.probe(sc);
      assertTrue(ItCluster.total(p, "mapOutputsPublished") > 0, p.toString());
      assertTrue(ItCluster.total(p, "blocksRemote") > 0, p.toString());
      assertTrue(ItCluster.total(p, "readersOfMapRanges") > 0, p.toString());
      assertEquals(0, ItCluster.total(p, "fallbacks"), p.toString());
      System.out.println("cross-version differential passed on Spark " + s.version());
    } finally {
      Differential.stop(s);
    }
  }
}
