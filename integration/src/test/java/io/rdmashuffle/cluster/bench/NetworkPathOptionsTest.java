/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NetworkPathOptionsTest {
  @Test
  void sizesAndRatesOfTheOptions() {
    assertEquals(768L << 20, NetworkPathOptions.size("768m"));
    assertEquals(32768, NetworkPathOptions.size("32k"));
    assertEquals(1000, NetworkPathOptions.size("1000"));
    NetworkPathOptions o =
        NetworkPathOptions.parse(
            "--rates", "300mbit,none", "--bytes", "1m", "--record", "1000", "--maps", "3");
    assertEquals(300_000_000L, o.rates().get(0).bitsPerSecond());
    assertNull(o.rates().get(1));
    assertEquals(349, o.recordsPerMap()); // 1048576 / 3 / 1000, whole records
    assertEquals(349L * 3 * 1000, o.shuffledBytes());
    assertFalse(o.compress());
    assertTrue(NetworkPathOptions.parse("--compress").compress());
    assertEquals(0, o.warmUpBytes());
    assertEquals(192L << 20, NetworkPathOptions.parse("--warm-up", "192m").warmUpBytes());
  }

  @Test
  void settingsForOneSideOnly() {
    NetworkPathOptions o =
        NetworkPathOptions.parse(
            "--stock-conf",
            "spark.shuffle.checksum.algorithm=CRC32",
            "--ours-conf",
            "spark.shuffle.rdma.read.local=false",
            "--stock-conf",
            "spark.reducer.maxSizeInFlight=96m");
    assertEquals(
        java.util.Map.of(
            "spark.shuffle.checksum.algorithm", "CRC32", "spark.reducer.maxSizeInFlight", "96m"),
        o.sideConf("stock"));
    assertEquals(java.util.Map.of("spark.shuffle.rdma.read.local", "false"), o.sideConf("ours"));
    assertTrue(NetworkPathOptions.parse().sideConf("stock").isEmpty());
    assertThrows(
        IllegalArgumentException.class, () -> NetworkPathOptions.parse("--stock-conf", "nokey"));
    assertThrows(
        IllegalArgumentException.class,
        () -> NetworkPathOptions.parse("--ours-conf", "hadoop.x=1"));
  }

  /** The compressed workload's records compress; the random ones don't, and stay as they were. */
  @Test
  void compressibleRecordsCompressAndRandomOnesDoNot() {
    byte[] words =
        new NetworkPathApp.RandomRecords(3, 1, 32 << 10, NetworkPathApp.VOCABULARY).next();
    byte[] random = new NetworkPathApp.RandomRecords(3, 1, 32 << 10).next();
    assertTrue(deflated(words) < words.length / 2, "compressible: " + deflated(words));
    assertTrue(deflated(random) > random.length * 0.99, "random: " + deflated(random));
    assertArrayEquals(random, new NetworkPathApp.RandomRecords(3, 1, 32 << 10, 0).next());
  }

  private static int deflated(byte[] b) {
    java.util.zip.Deflater d = new java.util.zip.Deflater(java.util.zip.Deflater.BEST_SPEED);
    d.setInput(b);
    d.finish();
    byte[] out = new byte[b.length * 2];
    int n = d.deflate(out);
    d.end();
    return n;
  }

  @Test
  void rejectsUnknownOptionsAndTooSmallRuns() {
    assertThrows(IllegalArgumentException.class, () -> NetworkPathOptions.parse("--nope", "1"));
    assertThrows(IllegalArgumentException.class, () -> NetworkPathOptions.parse("--hosts", "1"));
    assertThrows(
        IllegalArgumentException.class,
        () -> NetworkPathOptions.parse("--bytes", "1k", "--record", "32k"));
    assertThrows( // a warm-up too small for one record per map task
        IllegalArgumentException.class,
        () -> NetworkPathOptions.parse("--warm-up", "100k", "--record", "32k", "--maps", "8"));
    assertThrows(IllegalArgumentException.class, () -> NetworkPathOptions.size("12x"));
  }
}
