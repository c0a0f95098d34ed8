/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import java.util.Arrays;

/**
 * One map output and the partitions a reader wants from it (ascending, distinct), with the engine's
 * tag (Spark: the block manager, map id and index it names in a fetch failure).
 */
public record BlockSource(Owner owner, String shuffle, String map, int[] partitions, Object tag) {
  public BlockSource {
    partitions = partitions.clone();
    if (partitions.length == 0) {
      throw new IllegalArgumentException("no partitions wanted of map output " + map);
    }
    for (int i = 0; i < partitions.length; i++) {
      if (partitions[i] < 0 || (i > 0 && partitions[i] <= partitions[i - 1])) {
        throw new IllegalArgumentException(
            "partitions " + Arrays.toString(partitions) + ": must be ascending, distinct");
      }
    }
  }

  @Override
  public String toString() {
    return "map output "
        + map
        + (shuffle.isEmpty() ? "" : " of shuffle " + shuffle)
        + " at "
        + owner.address();
  }
}
