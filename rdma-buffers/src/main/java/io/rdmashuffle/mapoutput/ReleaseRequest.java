/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.util.List;

/**
 * A reader is done READing some map outputs it located: their owner ends the reader's leases, so
 * they may be deregistered to make room. Fire and forget: a lost release only means the leases time
 * out. Its bytes are {@link ReleaseLayout}'s.
 *
 * @param reader the reader its {@link LocateRequest}s named (never 0)
 * @param shuffle the shuffle, as {@link OutputId#shuffle()} names it
 * @param maps the maps, as {@link OutputId#map()} names them
 */
public record ReleaseRequest(long reader, String shuffle, List<String> maps) {
  public ReleaseRequest {
    maps = List.copyOf(maps);
    if (reader == 0) {
      throw new IllegalArgumentException("reader=0: a reader without leases releases nothing");
    }
    if (maps.isEmpty() || maps.size() > LocateRequest.MAX_MAPS) {
      throw new IllegalArgumentException(
          "maps=" + maps.size() + ": must be in 1 .. " + LocateRequest.MAX_MAPS);
    }
    for (String m : maps) {
      new OutputId("-", shuffle, m); // validates both names
    }
  }

  /** The id of map {@code i} of this request in {@code application}. */
  public OutputId id(String application, int i) {
    return new OutputId(application, shuffle, maps.get(i));
  }
}
