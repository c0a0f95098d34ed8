/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.sparkit;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A shuffle of 5000 map outputs served by executors whose open-file limit is 1024 (each registered
 * output holds an open file): the serving side keeps at most serve.maxOpenOutputs registered,
 * deregistering the least recently asked-for, and every block still arrives through the transport;
 * the result is what the stock shuffle returns (computed here without Spark).
 */
@Timeout(600)
class OpenFileLimitIT {
  private static final int LIMIT = 1024;
  private static final int MAPS = 5000;

  @Test
  void fiveThousandMapOutputsUnderAnOpenFileLimitOf1024() throws Exception {
    Path work = ItCluster.workDir("open-files");
    SparkSession s =
        Differential.start(
            ItCluster.localCluster("open-file-limit", work)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                // the worker starts executors with $JAVA_HOME/bin/java: this one lowers the limit
                // first
                .set("spark.executorEnv.JAVA_HOME", javaWithOpenFileLimit(work, LIMIT).toString())
                .set("spark.shuffle.rdma.read.local", "false"));
    try {
      JavaSparkContext sc = ItCluster.jsc(s);
      Map<String, Map<String, Long>> before = ItCluster.probe(sc);
      for (Map<String, Long> e : before.values()) {
        assertEquals(LIMIT, e.get("maxOpenFiles"), "executor not limited: " + before);
      }
      TaskOutcomes outcomes = TaskOutcomes.watch(sc);
      List<String> sums =
          DifferentialIT.canonical(
              DifferentialCases.pairs(sc, MAPS * 4, 1000, MAPS).reduceByKey(Long::sum, 4));
      outcomes.settle(sc);
      assertEquals(DifferentialCases.expectedSums(MAPS * 4, 1000, MAPS), sums);
      assertEquals(
          0, outcomes.fetchFailures.get() + outcomes.otherFailures.get(), outcomes.toString());
      Map<String, Map<String, Long>> p = ItCluster.probe(sc);
      assertEquals(MAPS, ItCluster.total(p, "mapOutputsPublished"), p.toString());
      assertEquals(0, ItCluster.total(p, "fallbacks"), p.toString());
      assertEquals(0, ItCluster.total(p, "blocksLocal"), p.toString());
      assertEquals(nonEmptyBlocks(), ItCluster.total(p, "blocksRemote"), p.toString());
      for (Map<String, Long> e : p.values()) {
        assertTrue(e.get("serve.openOutputs") <= 512, "more registered than the bound: " + p);
        assertTrue(e.get("serve.evictions") > 0, "the bound never engaged: " + p);
      }
      System.out.println("open-file limit: " + outcomes + "\n" + p);
    } finally {
      Differential.stop(s);
    }
  }

  /** How many (map output, reduce partition) blocks of the shuffle hold records. */
  private static long nonEmptyBlocks() {
    long n = 0;
    for (int seed = 0; seed < MAPS; seed++) {
      Random r = new Random(seed);
      Set<Integer> partitions = new HashSet<>();
      for (int i = 0; i < 4; i++) {
        partitions.add(r.nextInt(1000) % 4); // HashPartitioner(4) of a non-negative key
        r.nextLong();
      }
      n += partitions.size();
    }
    return n;
  }

  /** A Java home whose bin/java runs this JVM's java with the open-file limit lowered. */
  private static Path javaWithOpenFileLimit(Path work, int limit) throws IOException {
    Path home = work.resolve("java-nofile-" + limit);
    Path bin = Files.createDirectories(home.resolve("bin"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Files.writeString(
        bin.resolve("java"),
        "#!/bin/sh\nexec prlimit --nofile=" + limit + ":" + limit + " '" + java + "' \"$@\"\n");
    Files.setPosixFilePermissions(
        bin.resolve("java"), PosixFilePermissions.fromString("rwxr-xr-x"));
    return home;
  }
}
