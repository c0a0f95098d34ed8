/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.provider;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.ConfigSource;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.testing.TestSchema;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The memlock limit is checked against what the process pins: served outputs, READ buffers. */
class PinnedMemoryTest {
  private static final RdmaConf CONF =
      RdmaConf.load(
          TestSchema.HADOOP_KEYS,
          ConfigSource.of(
              Map.of(
                  "mapreduce.shuffle.rdma.serve.maxPinnedBytes", "8g",
                  "mapreduce.shuffle.rdma.buffers.maxBytes", "256m")));

  @Test
  void aServingOnlyProcessIsCheckedAgainstTheServingBound() {
    PinnedMemory serving = PinnedMemory.of(CONF, true, false);
    assertEquals(8L << 30, serving.bytes());
    // a memlock limit that covers the READ buffers but not the served outputs
    String why = serving.memlockShortfall(1L << 30);
    assertNotNull(why, "1g of memlock is not enough to serve 8g");
    assertTrue(why.contains("mapreduce.shuffle.rdma.serve.maxPinnedBytes=" + (8L << 30)), why);
    assertFalse(why.contains("buffers.maxBytes"), why);
    assertNull(serving.memlockShortfall(Long.MAX_VALUE));
    assertNull(serving.memlockShortfall(-1), "unknown: not refused");
  }

  @Test
  void aReadingProcessIsCheckedAgainstItsBuffersAndOneThatDoesBothAgainstTheSum() {
    assertEquals(256L << 20, PinnedMemory.of(CONF, false, true).bytes());
    assertNull(PinnedMemory.of(CONF, false, true).memlockShortfall(1L << 30));
    PinnedMemory both = PinnedMemory.of(CONF, true, true);
    assertEquals((8L << 30) + (256L << 20), both.bytes());
    assertNotNull(both.memlockShortfall(8L << 30));
    assertThrows(IllegalArgumentException.class, () -> PinnedMemory.of(CONF, false, false));
  }

  @Test
  void servedOutputsRegisteredOnDemandPinNothing() {
    RdmaConf odp =
        RdmaConf.load(
            TestSchema.HADOOP_KEYS,
            ConfigSource.of(
                Map.of(
                    "mapreduce.shuffle.rdma.serve.maxPinnedBytes", "8g",
                    "mapreduce.shuffle.rdma.verbs.registration", "odp")));
    PinnedMemory serving = PinnedMemory.of(odp, true, false);
    assertEquals(0, serving.bytes());
    assertNull(serving.memlockShortfall(0));
  }
}
