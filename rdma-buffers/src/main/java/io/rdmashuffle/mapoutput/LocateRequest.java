/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.util.List;

/**
 * A reader's question to a serving process: where do I READ partitions {@code [start, end)} of
 * these map outputs of one shuffle of my application? The application is the one the reader's
 * connection proved; it is not part of the request. Its bytes are {@link LocateLayout}'s.
 *
 * @param shuffle the shuffle, as {@link OutputId#shuffle()} names it
 * @param maps the maps, as {@link OutputId#map()} names them; the answer keeps their order
 * @param localPaths whether the reader runs on the serving host and wants each data file's path to
 *     read it without the transport
 * @param reader who asks, for the leases of what it is answered: a located output stays registered
 *     until this reader releases it ({@link ReleaseRequest}) or its lease times out; 0 for a reader
 *     that never releases (its leases only time out)
 */
public record LocateRequest(
    String shuffle,
    List<String> maps,
    int startPartition,
    int endPartition,
    boolean localPaths,
    long reader) {

  /** At most this many maps per request; readers ask in batches. */
  public static final int MAX_MAPS = 1024;

  public LocateRequest {
    maps = List.copyOf(maps);
    if (maps.isEmpty() || maps.size() > MAX_MAPS) {
      throw new IllegalArgumentException("maps=" + maps.size() + ": must be in 1 .. " + MAX_MAPS);
    }
    if (startPartition < 0 || endPartition <= startPartition) {
      throw new IllegalArgumentException(
          "startPartition="
              + startPartition
              + ", endPartition="
              + endPartition
              + ": empty or negative range");
    }
    if (endPartition - startPartition > MetaFileLayout.MAX_PARTITIONS) {
      throw new IllegalArgumentException(
          "startPartition="
              + startPartition
              + ", endPartition="
              + endPartition
              + ": more than "
              + MetaFileLayout.MAX_PARTITIONS
              + " partitions");
    }
    for (String m : maps) {
      new OutputId("-", shuffle, m); // validates both names
    }
  }

  /** A request of a reader that never releases its leases (they time out). */
  public LocateRequest(
      String shuffle, List<String> maps, int startPartition, int endPartition, boolean localPaths) {
    this(shuffle, maps, startPartition, endPartition, localPaths, 0);
  }

  /** The id of map {@code i} of this request in {@code application}. */
  public OutputId id(String application, int i) {
    return new OutputId(application, shuffle, maps.get(i));
  }
}
