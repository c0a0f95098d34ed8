/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

class RateTest {
  @Test
  void tcUnitsAreParsed() {
    assertEquals(300_000_000L, Rate.parse("300mbit").bitsPerSecond());
    assertEquals(1_000_000_000L, Rate.parse("1GBit").bitsPerSecond());
    assertEquals(800_000L, Rate.parse("800kbit").bitsPerSecond());
    assertEquals("300mbit", Rate.parse("300mbit").toString());
  }

  @Test
  void theBucketHoldsFourMillisecondsButAtLeastAnOffloadedPacket() {
    assertEquals(150_000, Rate.parse("300mbit").burstBytes());
    assertEquals(Rate.MIN_BURST_BYTES, Rate.parse("10mbit").burstBytes());
    assertEquals(
        List.of("tc", "x", "tbf", "rate", "300000000bit", "burst", "150000", "latency", "50ms"),
        List.of(Rate.parse("300mbit").tbf("tc", "x")));
  }

  @Test
  void badRatesAreRefusedNamingTheValue() {
    for (String bad : new String[] {"300", "300mbps", "fast", "-1mbit"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Rate.parse(bad));
      assertTrue(e.getMessage().startsWith("rate=" + bad + ":"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> Rate.parse("10bit"));
  }
}
