/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import java.util.Map;

/**
 * A JVM that starts a two-host cluster with a process in each host and waits to be ended, for
 * {@link ClusterTeardownIT}: prints {@code UP} when the cluster runs, or the start's error and
 * exits 3.
 */
public final class ClusterChild {
  private ClusterChild() {}

  public static void main(String[] args) throws InterruptedException {
    Cluster c;
    try {
      c =
          Cluster.start(
              ClusterSpec.builder("child").hosts(2).build(), ClusterPaths.fromSystemProperties());
    } catch (RuntimeException e) {
      System.out.println("FAILED " + e.getMessage());
      System.exit(3);
      return;
    }
    for (Host h : c.hosts()) {
      h.start(
          new ProcessSpec(
              "sleeper", java.util.List.of("sleep", "600"), Map.of(), h.log("sleeper")));
    }
    System.out.println("UP");
    Thread.sleep(600_000);
  }
}
