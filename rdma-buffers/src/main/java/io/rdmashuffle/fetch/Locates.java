/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The locate calls of one {@link BlockFetcher}: it asks each owner where to READ its map outputs in
 * batches (one call for at most {@value #BATCH} map outputs of an owner, and no more than its
 * answer holds: {@link LocateLayout#plannedEntryBytes} of the union of their partitions within the
 * locator's {@code call.maxAnswerBytes}; a map output wider than one answer is located in parts of
 * its partitions, a call each), keeps a few batches of an owner being read at once (an owner
 * registers and leases what it is asked for, so asking for everything at once would crowd it; see
 * {@link #activeFor}; a batch is done when every block of it has settled: READ into this task's
 * buffers, or handed over, whichever comes first, so the next batch is located while the consumer
 * is still busy with the blocks of earlier ones), plans the READs of each answer, and asks again
 * when an owner could not answer, answered only a prefix of the call (its own bound is lower than
 * planned) or withdrew a registration meanwhile. Answers arrive on transport threads and are handed
 * to the fetcher's driver as signals of the segment fetcher. Driver only (the thread holding the
 * fetcher's lock).
 *
 * <p>This class keeps the owners' queues and their batches; {@link LocatePart} sizes the calls,
 * {@link LocateCalls} sends them and asks again after a wait, {@link AnswerHandler} acts on their
 * answers, and {@link ReaderLeases} tells owners what this reader is done with.
 */
final class Locates {
  static final int BATCH = 32;

  /** Batches of one owner active at once: never fewer (and so while the owner is crowded). */
  static final int MIN_ACTIVE_PER_OWNER = 2;

  /** Batches of one owner active at once: never more. */
  static final int MAX_ACTIVE_PER_OWNER = 8;

  /**
   * Batches active at once across the owners that lease what they answer: {@value} x {@value
   * #BATCH} map outputs leased by one reader at most, unless it reads from more than {@value} /
   * {@value #MIN_ACTIVE_PER_OWNER} such owners.
   */
  static final int ACTIVE_PER_READER = 16;

  private final FetchContext ctx;
  private final long maxAnswerBytes;

  /** This reader's leases at the owners, and the release calls that end them. */
  private final ReaderLeases leases;

  /** The calls on their way, and those waiting to be sent again. */
  private final LocateCalls calls;

  /** What each answer leads to: reads planned, calls made again. */
  private final AnswerHandler answers;

  private final Map<Owner, OwnerQueue> owners = new LinkedHashMap<>();
  private final IdentityHashMap<BlockSource, Batch> batchOf = new IdentityHashMap<>();

  /** When each READ located again was first found withdrawn (nanos). */
  private final IdentityHashMap<PendingRead, Long> relocatedSince = new IdentityHashMap<>();

  Locates(FetchContext ctx, Locator locator) {
    this.ctx = ctx;
    this.maxAnswerBytes = locator.maxAnswerBytes();
    this.leases = new ReaderLeases(ctx, locator);
    this.calls = new LocateCalls(ctx, locator, leases);
    this.answers = new AnswerHandler(ctx, calls, this::crowded);
  }

  private boolean local(Owner owner) {
    return owner.sameHost() && ctx.options.readLocal();
  }

  /**
   * One owner's map outputs waiting to be located (in parts), and how many of its batches are
   * active.
   */
  private final class OwnerQueue {
    final Owner owner;
    final ArrayDeque<LocatePart> waiting = new ArrayDeque<>();
    int active;

    /** Batches that may be active at once: set at {@link #start}, lowered when crowded. */
    int limit = MIN_ACTIVE_PER_OWNER;

    OwnerQueue(Owner owner) {
      this.owner = owner;
    }

    void issue() {
      while (active < limit && !waiting.isEmpty()) {
        Batch b = new Batch(this);
        active++;
        if (!waiting.peek().whole()) {
          // a source wider than one answer: a batch of its own, a call for each of its parts
          BlockSource s = waiting.peek().source();
          b.add(s);
          while (!waiting.isEmpty() && waiting.peek().source() == s) {
            calls.send(new Call(owner, List.of(waiting.poll()), local(owner), null, 0));
          }
          continue;
        }
        List<LocatePart> parts = new ArrayList<>();
        while (!waiting.isEmpty() && fits(parts, waiting.peek())) {
          LocatePart p = waiting.poll();
          b.add(p.source());
          parts.add(p);
        }
        calls.send(new Call(owner, parts, local(owner), null, 0));
      }
    }

    /** Whether {@code next} joins the call of {@code parts}: the first always does. */
    private boolean fits(List<LocatePart> parts, LocatePart next) {
      if (parts.isEmpty()) {
        return true;
      }
      return parts.size() < BATCH
          && next.whole()
          && parts.get(0).source().shuffle().equals(next.source().shuffle())
          && LocatePart.plannedBytes(parts, next, local(owner)) <= maxAnswerBytes;
    }
  }

  /** Map outputs located together: active until all their blocks settled. */
  private final class Batch {
    final OwnerQueue queue;
    int blocks;

    Batch(OwnerQueue queue) {
      this.queue = queue;
    }

    void add(BlockSource s) {
      batchOf.put(s, this);
      blocks += s.partitions().length;
      leases.located(s, local(queue.owner));
    }
  }

  /**
   * One locate call: the parts of map outputs it locates, whether it asks for local paths, the READ
   * to issue again from the answer (a relocation) or null (plan every block), and its outcome.
   */
  static final class Call implements FetchSignal {
    final Owner owner;
    final List<LocatePart> parts;
    final boolean local;
    final PendingRead reissue;
    final int attempt;

    /** When the owner first answered busy for what this call asks (nanos), or 0. */
    long busySince;

    LocateAnswer answer;
    Throwable failure;

    Call(Owner owner, List<LocatePart> parts, boolean local, PendingRead reissue, int attempt) {
      this.owner = owner;
      this.parts = List.copyOf(parts);
      this.local = local;
      this.reissue = reissue;
      this.attempt = attempt;
    }

    /** The request of this call, made by {@code reader}. */
    LocateRequest request(long reader) {
      int start = Integer.MAX_VALUE;
      int end = 0;
      List<String> maps = new ArrayList<>(parts.size());
      for (LocatePart p : parts) {
        maps.add(p.source().map());
        start = Math.min(start, p.first());
        end = Math.max(end, p.end());
      }
      return new LocateRequest(parts.get(0).source().shuffle(), maps, start, end, local, reader);
    }
  }

  /**
   * Queues a map output to locate, in parts when one answer can't hold it; call {@link #start} once
   * every source was added.
   */
  void add(BlockSource s) {
    OwnerQueue q = owners.computeIfAbsent(s.owner(), OwnerQueue::new);
    q.waiting.addAll(LocatePart.partsOf(s, local(s.owner()), maxAnswerBytes));
  }

  /** Issues the first batches of every owner. */
  void start() {
    int leasing = 0;
    for (OwnerQueue q : owners.values()) {
      leasing += local(q.owner) ? 0 : 1;
    }
    for (OwnerQueue q : owners.values()) {
      q.limit = activeFor(local(q.owner), leasing);
    }
    for (OwnerQueue q : owners.values()) {
      q.issue();
    }
  }

  /**
   * Batches of an owner active at once, of a reader that reads from {@code leasing} owners which
   * lease what they answer. Each batch active is a locate-then-READ round trip in flight, so the
   * more, the fewer of them follow one another (a reduce task of a wide job locates hundreds of an
   * owner's map outputs); each also holds up to {@value #BATCH} leases at the owner until its
   * blocks are READ. So a reader's batches are {@value #ACTIVE_PER_READER} shared among those
   * owners, from {@value #MIN_ACTIVE_PER_OWNER} to {@value #MAX_ACTIVE_PER_OWNER} each: at a
   * hundred owners a reader asks each as little as ever, at two or three it overlaps its round
   * trips. An owner that answers local paths leases nothing: it gets the most. An owner that
   * answers BUSY gets the fewest from then on (as {@link AnswerHandler} finds it).
   */
  static int activeFor(boolean local, int leasing) {
    if (local) {
      return MAX_ACTIVE_PER_OWNER;
    }
    return Math.max(
        MIN_ACTIVE_PER_OWNER,
        Math.min(MAX_ACTIVE_PER_OWNER, ACTIVE_PER_READER / Math.max(1, leasing)));
  }

  /** Whether nothing is waiting to be located and no call is unanswered. */
  boolean idle() {
    if (!calls.idle()) {
      return false;
    }
    for (OwnerQueue q : owners.values()) {
      if (!q.waiting.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /**
   * A block of {@code s} settled ({@link FetchContext#settled}: its bytes are here, or the consumer
   * took it): a batch whose blocks all settled ends and the owner's next one is located, and the
   * owner is told this reader is done with the map outputs whose blocks all settled. Blocks of a
   * source this fetcher did not locate (this process's own) are ignored.
   */
  void settled(BlockSource s) {
    leases.settled(s);
    Batch b = batchOf.get(s);
    if (b != null && --b.blocks == 0) {
      leases.flush(b.queue.owner);
      b.queue.active--;
      b.queue.issue();
    }
  }

  /** The fetcher closes: every owner is told this reader is done with everything it asked for. */
  void releaseAll() {
    leases.releaseAll();
  }

  /**
   * The owner withdrew what {@code r} READs from: asks it again, then issues {@code r} anew. An
   * owner that keeps withdrawing it (more than the retries allow) can't serve it.
   */
  void relocate(PendingRead r, Throwable why) throws BlockFetchException {
    long now = System.nanoTime();
    long since = relocatedSince.computeIfAbsent(r, k -> now);
    BlockSource s = r.source();
    if (now - since > TimeUnit.MILLISECONDS.toNanos(ctx.options.patienceMillis())) {
      throw ctx.counters.failure(
          Kind.UNAVAILABLE,
          s,
          r.partition(),
          s.owner().address()
              + " kept withdrawing the map output while it was READ, for "
              + TimeUnit.NANOSECONDS.toMillis(now - since)
              + " ms",
          why);
    }
    ctx.counters.increment(ReadCounter.RELOCATES);
    // only the partitions the READ carries: the answer's descriptor is what it needs, and its
    // table must place each of them to show the output was not re-published otherwise
    int from = Arrays.binarySearch(s.partitions(), r.partition());
    int last = Arrays.binarySearch(s.partitions(), r.lastPartition());
    LocatePart p =
        from >= 0 && last >= from
            ? new LocatePart(s, from, last + 1)
            : new LocatePart(s, 0, s.partitions().length);
    calls.send(new Call(s.owner(), List.of(p), false, r, 0));
  }

  /** A retry whose wait is over: issue it on the consumer's thread. */
  record Retry(Call call) implements FetchSignal {}

  /** The consumer's thread: a retry is due. */
  void due(Retry r) {
    calls.due(r);
  }

  /**
   * The consumer's thread: a call was answered (or failed). Plans the READs (or local reads) of
   * every map output it located, asks again for those the owner could not answer (now, or in this
   * call's bound), and fails where a map output is lost ({@link AnswerHandler}).
   */
  void answered(Call c) throws BlockFetchException {
    calls.answered(c);
    answers.answered(c);
  }

  /** {@code owner} answered BUSY: it has no room for more leases, so it is asked for less. */
  private void crowded(Owner owner) {
    OwnerQueue q = owners.get(owner);
    if (q != null) {
      q.limit = MIN_ACTIVE_PER_OWNER;
    }
  }
}
