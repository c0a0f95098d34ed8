/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

/**
 * A reader's question to the owner of a block whose bytes did not match their published checksum:
 * what checksum does partition {@code partition} of this map output have in your file now? The
 * application is the one the reader's connection proved. Its bytes are {@link ChecksumLayout}'s.
 *
 * @param shuffle the shuffle, as {@link OutputId#shuffle()} names it
 * @param map the map, as {@link OutputId#map()} names it
 */
public record ChecksumRequest(String shuffle, String map, int partition) {
  public ChecksumRequest {
    new OutputId("-", shuffle, map); // validates both names
    if (partition < 0) {
      throw new IllegalArgumentException("partition=" + partition + ": negative");
    }
  }

  /** The map output this request is about, in {@code application}. */
  public OutputId id(String application) {
    return new OutputId(application, shuffle, map);
  }
}
