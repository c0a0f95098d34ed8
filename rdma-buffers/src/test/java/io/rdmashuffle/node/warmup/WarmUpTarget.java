/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node.warmup;

/** A class with a static initializer that a warm-up must not run. */
public final class WarmUpTarget {
  static {
    WarmUpProbe.TARGET_INITIALIZED.set(true);
  }

  private WarmUpTarget() {}

  public static int answer() {
    return 42;
  }
}
