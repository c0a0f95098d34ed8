/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmashuffle.cluster.net.Rate;
import org.junit.jupiter.api.Test;

class ReduceStageModelTest {
  @Test
  void theLinkFloorIsEachHostsShareAtTheAchievableRate() {
    // 0.6 GB served by 4 hosts: 0.15 GB each, 1.2 Gbit at 0.935 x 150 Mbit/s
    assertEquals(
        8.556, ReduceStageModel.linkFloorSeconds(600_000_000L, 4, new Rate(150_000_000L)), 0.001);
    assertEquals(0, ReduceStageModel.linkFloorSeconds(600_000_000L, 4, null));
  }

  @Test
  void theStageTakesAsLongAsItsSlowestResource() {
    assertEquals(5.0, ReduceStageModel.cpuFloorSeconds(10, 2));
    assertEquals(8.5, ReduceStageModel.predictedSeconds(8.5, 5.0));
    assertEquals(5.0, ReduceStageModel.predictedSeconds(0, 5.0));
  }
}
