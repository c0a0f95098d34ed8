/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import io.rdmashuffle.cluster.net.Rate;

/**
 * The performance model of {@code docs/performance.md} applied to one run on the cluster harness:
 * the reduce stage cannot end before the slowest of its resources has done its part, the links
 * ({@code T_link}: the bytes each host sends at the share of the rate that carries payload) and the
 * processors ({@code T_cpu}: the executors' CPU over the stage, on the cores every host of the
 * harness shares). Round trips before the first byte ({@code T_start}) are left out: on the harness
 * they are a few tens of milliseconds per task wave.
 */
final class ReduceStageModel {
  /**
   * The share of a {@code tbf} rate that carries payload with TCP over 1500-byte Ethernet frames,
   * headers and acknowledgements counted: what a link can deliver at best.
   */
  static final double TCP_PAYLOAD_SHARE = 0.935;

  private ReduceStageModel() {}

  /**
   * {@code T_link}: seconds for each of {@code hosts} hosts to send its share of {@code served}
   * bytes at the achievable share of {@code rate}; 0 when the links are not rate-limited.
   */
  static double linkFloorSeconds(long served, int hosts, Rate rate) {
    if (rate == null) {
      return 0;
    }
    return served / (double) hosts * 8 / (TCP_PAYLOAD_SHARE * rate.bitsPerSecond());
  }

  /** {@code T_cpu}: {@code cpuSeconds} of work spread over {@code cores}. */
  static double cpuFloorSeconds(double cpuSeconds, int cores) {
    return cpuSeconds / cores;
  }

  /** The model's reduce stage: the larger of the two floors. */
  static double predictedSeconds(double linkFloor, double cpuFloor) {
    return Math.max(linkFloor, cpuFloor);
  }
}
