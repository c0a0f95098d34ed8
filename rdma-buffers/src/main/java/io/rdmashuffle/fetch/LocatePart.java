/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.LocateLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Partitions {@code [from, to)} (indexes into its partitions) of one source: what one locate call
 * locates of it. A source whose answer fits one call is one part. Also how large an answer a call
 * of parts is planned to take ({@link LocateLayout#plannedEntryBytes} of the union of their
 * partitions), and so how a source wider than one answer is cut into parts. Immutable.
 */
record LocatePart(BlockSource source, int from, int to) {
  int first() {
    return source.partitions()[from];
  }

  int end() {
    return source.partitions()[to - 1] + 1;
  }

  int blocks() {
    return to - from;
  }

  boolean whole() {
    return from == 0 && to == source.partitions().length;
  }

  List<LocatePart> halves() {
    int mid = (from + to) >>> 1;
    return List.of(new LocatePart(source, from, mid), new LocatePart(source, mid, to));
  }

  /** The answer a call of {@code parts} (and {@code more}, when not null) is planned to take. */
  static long plannedBytes(List<LocatePart> parts, LocatePart more, boolean local) {
    List<LocatePart> all = new ArrayList<>(parts);
    if (more != null) {
      all.add(more);
    }
    int start = Integer.MAX_VALUE;
    int end = 0;
    List<String> maps = new ArrayList<>(all.size());
    for (LocatePart p : all) {
      start = Math.min(start, p.first());
      end = Math.max(end, p.end());
      maps.add(p.source().map());
    }
    return LocateLayout.plannedAnswerBytes(maps, (long) end - start, local);
  }

  /**
   * {@code s} cut into parts, in order, each the widest one answer of {@code maxAnswerBytes} holds
   * (one partition at least): one part when the whole source fits.
   */
  static List<LocatePart> partsOf(BlockSource s, boolean local, long maxAnswerBytes) {
    List<LocatePart> parts = new ArrayList<>();
    for (int from = 0; from < s.partitions().length; ) {
      int to = widest(s, from, local, maxAnswerBytes);
      parts.add(new LocatePart(s, from, to));
      from = to;
    }
    return parts;
  }

  /**
   * The end of the widest part of {@code s} from index {@code from} one answer holds (one at
   * least).
   */
  private static int widest(BlockSource s, int from, boolean local, long maxAnswerBytes) {
    int lo = from + 1; // fits, or is the least a part can be
    int hi = s.partitions().length;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (plannedBytes(List.of(new LocatePart(s, from, mid)), null, local) <= maxAnswerBytes) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}
