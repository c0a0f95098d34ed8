/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.mapred.Counters;
import org.junit.jupiter.api.Test;

/**
 * MapReduce shows each counter under the label it is declared with: the committed
 * RdmaShuffleCounter.properties (generated from the declarations by conf's MetricsFiles, checked
 * there byte for byte) is the one MapReduce reads.
 */
class RdmaShuffleCounterTest {
  @Test
  void mapReduceDisplaysTheDeclaredLabels() {
    Counters counters = new Counters();
    for (RdmaShuffleCounter c : RdmaShuffleCounter.values()) {
      Counters.Counter counter = counters.findCounter(c);
      assertEquals(c.name(), counter.getName());
      assertEquals(c.label(), counter.getDisplayName(), c.name());
    }
    assertEquals(
        RdmaShuffleCounter.GROUP_DISPLAY_NAME,
        counters.getGroup(RdmaShuffleCounter.class.getName()).getDisplayName());
  }

  @Test
  void idsAreUniqueAndInTheGroupsRange() {
    Set<Integer> ids = new HashSet<>();
    for (RdmaShuffleCounter c : RdmaShuffleCounter.values()) {
      assertTrue(ids.add(c.id()), c + " reuses id " + c.id());
      assertTrue(c.id() >= 500 && c.id() < 600, c + ": " + c.id());
      assertFalse(c.label().isBlank() || c.label().contains("\n"), c.name());
    }
  }
}
