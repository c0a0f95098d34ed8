/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The leases one {@link Locates}' reader holds at the owners it asks: who the reader is to them
 * (the holder of the leases of what they answer it), which map outputs it may hold a lease on, how
 * many blocks of each have not settled (READ here, or handed over), and the release calls that tell
 * an owner the reader is done with them (in batches of {@value #RELEASE_BATCH}, at once while the
 * reader waits for an answer there). Driver only.
 */
final class ReaderLeases {
  /** Map outputs released in one call once this many are done. */
  static final int RELEASE_BATCH = 16;

  private final FetchContext ctx;
  private final Locator locator;

  /** Who this fetcher is to its owners: the holder of the leases of what they answer it. */
  private final long reader = newReaderId();

  /** Blocks of each located source not yet settled; at 0 its lease is released. */
  private final IdentityHashMap<BlockSource, Integer> unsettled = new IdentityHashMap<>();

  /** Map outputs this reader is done with, per owner, not yet released. */
  private final Map<Owner, List<BlockSource>> toRelease = new LinkedHashMap<>();

  /** Sources whose owner was asked and may hold a lease for this reader; released at close. */
  private final Set<BlockSource> leased = Collections.newSetFromMap(new IdentityHashMap<>());

  /** Locate calls sent to each owner and not yet answered. */
  private final Map<Owner, Integer> asking = new HashMap<>();

  ReaderLeases(FetchContext ctx, Locator locator) {
    this.ctx = ctx;
    this.locator = locator;
  }

  /** The id the owners hold this reader's leases under. */
  long reader() {
    return reader;
  }

  /** A reader id: random, never 0 (a reader without leases). */
  static long newReaderId() {
    long id;
    do {
      id = ThreadLocalRandom.current().nextLong();
    } while (id == 0);
    return id;
  }

  /** {@code s} is to be located (asking for a local path when {@code local}). */
  void located(BlockSource s, boolean local) {
    unsettled.put(s, s.partitions().length);
    if (!local) {
      leased.add(s); // a local path is not leased: nothing to release
    }
  }

  /**
   * A locate call goes to {@code owner}: what this reader is done with there goes first (its own
   * leases must not keep it waiting), and until it is answered, what it finishes there goes at
   * once.
   */
  void calling(Owner owner) {
    flush(owner);
    asking.merge(owner, 1, Integer::sum);
  }

  /** A locate call to {@code owner} was answered (or failed). */
  void answered(Owner owner) {
    asking.computeIfPresent(owner, (o, n) -> n > 1 ? n - 1 : null);
  }

  /**
   * A block of {@code s} settled (its bytes are here, or it was handed over): once all of them
   * have, its owner is told this reader is done with it (in a batch, or at once while this reader
   * waits for an answer there).
   */
  void settled(BlockSource s) {
    Integer left = unsettled.computeIfPresent(s, (k, n) -> n > 1 ? n - 1 : null);
    if (left == null && leased.remove(s)) {
      List<BlockSource> done = toRelease.computeIfAbsent(s.owner(), k -> new ArrayList<>());
      done.add(s);
      if (done.size() >= RELEASE_BATCH || asking.getOrDefault(s.owner(), 0) > 0) {
        // at once while this reader waits for an answer there: its own leases must not be what
        // its call waits for
        flush(s.owner());
      }
    }
  }

  /** The fetcher closes: every owner is told this reader is done with everything it asked for. */
  void releaseAll() {
    for (BlockSource s : leased) {
      toRelease.computeIfAbsent(s.owner(), k -> new ArrayList<>()).add(s);
    }
    leased.clear();
    for (Owner o : new ArrayList<>(toRelease.keySet())) {
      flush(o);
    }
  }

  /**
   * Tells {@code owner} this reader is done with the map outputs it finished there: one call per
   * shuffle, fire and forget (a lost release only means the leases time out).
   */
  void flush(Owner owner) {
    List<BlockSource> done = toRelease.remove(owner);
    if (done == null || done.isEmpty()) {
      return;
    }
    Map<String, List<String>> byShuffle = new LinkedHashMap<>();
    for (BlockSource s : done) {
      List<String> maps = byShuffle.computeIfAbsent(s.shuffle(), k -> new ArrayList<>());
      if (!maps.contains(s.map())) {
        maps.add(s.map());
      }
    }
    for (Map.Entry<String, List<String>> e : byShuffle.entrySet()) {
      List<String> maps = e.getValue();
      for (int from = 0; from < maps.size(); from += LocateRequest.MAX_MAPS) {
        List<String> part =
            maps.subList(from, Math.min(maps.size(), from + LocateRequest.MAX_MAPS));
        try {
          locator.release(
              owner.address(), ctx.application, new ReleaseRequest(reader, e.getKey(), part));
        } catch (RuntimeException ex) {
          // fire and forget: the leases time out
        }
      }
    }
  }
}
