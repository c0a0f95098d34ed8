/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import org.apache.spark.ShuffleDependency;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.ShuffleHandle;

/**
 * The handle of a shuffle served by rdma-shuffle. It wraps the handle Spark's sort shuffle chose
 * for the same dependency (bypass-merge, serialized or sort), so map tasks write through exactly
 * the writer Spark would have used. A shuffle that fell back has Spark's handle instead.
 */
final class RdmaShuffleHandle<K, V, C> extends BaseShuffleHandle<K, V, C> {
  private static final long serialVersionUID = 1L;

  private final ShuffleHandle sortHandle;

  RdmaShuffleHandle(
      int shuffleId, ShuffleDependency<K, V, C> dependency, ShuffleHandle sortHandle) {
    super(shuffleId, dependency);
    this.sortHandle = sortHandle;
  }

  /** The handle Spark's SortShuffleManager returned for this shuffle. */
  ShuffleHandle sortHandle() {
    return sortHandle;
  }
}
