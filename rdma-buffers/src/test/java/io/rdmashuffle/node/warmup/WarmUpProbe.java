/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node.warmup;

import java.util.concurrent.atomic.AtomicBoolean;

/** What {@code ClassWarmUpTest} watches: whether {@link WarmUpTarget}'s initializer ran. */
public final class WarmUpProbe {
  public static final AtomicBoolean TARGET_INITIALIZED = new AtomicBoolean();

  private WarmUpProbe() {}
}
