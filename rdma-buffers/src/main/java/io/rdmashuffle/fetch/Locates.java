/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.transport.CallRefusedException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The locate calls of one {@link BlockFetcher}: it asks each owner where to READ its map outputs in
 * batches (one call for at most {@value #BATCH} map outputs of an owner, and no more than its
 * answer holds: {@link LocateLayout#plannedEntryBytes} of the union of their partitions within the
 * locator's {@code call.maxAnswerBytes}; a map output wider than one answer is located in parts of
 * its partitions, a call each), keeps at most {@value #ACTIVE_PER_OWNER} batches of an owner being
 * read at once (an owner registers what it is asked for, so asking for everything at once would
 * make it deregister outputs before they are read), plans the READs of each answer, and asks again
 * when an owner could not answer, answered only a prefix of the call (its own bound is lower than
 * planned) or withdrew a registration meanwhile. Answers arrive on transport threads and are handed
 * to the fetcher's driver as signals of the segment fetcher. Driver only (the thread holding the
 * fetcher's lock).
 */
final class Locates {
  static final int BATCH = 32;
  static final int ACTIVE_PER_OWNER = 2;

  private final FetchContext ctx;
  private final Locator locator;
  private final long maxAnswerBytes;

  /** Who this fetcher is to its owners: the holder of the leases of what they answer it. */
  private final long reader = newReaderId();

  private final Map<Owner, OwnerQueue> owners = new LinkedHashMap<>();
  private final IdentityHashMap<BlockSource, Batch> batchOf = new IdentityHashMap<>();

  /** When each READ located again was first found withdrawn (nanos). */
  private final IdentityHashMap<PendingRead, Long> relocatedSince = new IdentityHashMap<>();

  /** Blocks of each located source not yet handed over; at 0 its lease is released. */
  private final IdentityHashMap<BlockSource, Integer> unhanded = new IdentityHashMap<>();

  /** Map outputs this reader is done with, per owner, not yet released. */
  private final Map<Owner, List<BlockSource>> toRelease = new LinkedHashMap<>();

  /** Sources whose owner was asked and may hold a lease for this reader; released at close. */
  private final java.util.Set<BlockSource> leased =
      java.util.Collections.newSetFromMap(new IdentityHashMap<>());

  /** Locate calls sent to each owner and not yet answered. */
  private final Map<Owner, Integer> asking = new java.util.HashMap<>();

  /** Map outputs released in one call once this many are done. */
  static final int RELEASE_BATCH = 16;

  private int outstanding;

  Locates(FetchContext ctx, Locator locator) {
    this.ctx = ctx;
    this.locator = locator;
    this.maxAnswerBytes = locator.maxAnswerBytes();
  }

  /**
   * Partitions {@code [from, to)} (indexes into its partitions) of one source: what one call
   * locates of it. A source whose answer fits one call is one part.
   */
  record Part(BlockSource source, int from, int to) {
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

    List<Part> halves() {
      int mid = (from + to) >>> 1;
      return List.of(new Part(source, from, mid), new Part(source, mid, to));
    }
  }

  /** The answer a call of {@code parts} (and {@code more}, when not null) is planned to take. */
  private static long plannedBytes(List<Part> parts, Part more, boolean local) {
    int start = more == null ? Integer.MAX_VALUE : more.first();
    int end = more == null ? 0 : more.end();
    for (Part p : parts) {
      start = Math.min(start, p.first());
      end = Math.max(end, p.end());
    }
    long partitions = (long) end - start;
    long bytes = LocateLayout.MAX_ANSWER_HEADER_BYTES;
    for (Part p : parts) {
      bytes += LocateLayout.plannedEntryBytes(p.source().map(), partitions, local);
    }
    if (more != null) {
      bytes += LocateLayout.plannedEntryBytes(more.source().map(), partitions, local);
    }
    return bytes;
  }

  private boolean local(Owner owner) {
    return owner.sameHost() && ctx.options.readLocal();
  }

  private static long newReaderId() {
    long id;
    do {
      id = java.util.concurrent.ThreadLocalRandom.current().nextLong();
    } while (id == 0);
    return id;
  }

  /**
   * The end of the widest part of {@code s} from index {@code from} one answer holds (one at
   * least).
   */
  private int widest(BlockSource s, int from, boolean local) {
    int lo = from + 1; // fits, or is the least a part can be
    int hi = s.partitions().length;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (plannedBytes(List.of(new Part(s, from, mid)), null, local) <= maxAnswerBytes) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * One owner's map outputs waiting to be located (in parts), and how many of its batches are
   * active.
   */
  private final class OwnerQueue {
    final Owner owner;
    final ArrayDeque<Part> waiting = new ArrayDeque<>();
    int active;

    OwnerQueue(Owner owner) {
      this.owner = owner;
    }

    void issue() {
      while (active < ACTIVE_PER_OWNER && !waiting.isEmpty()) {
        Batch b = new Batch(this);
        active++;
        if (!waiting.peek().whole()) {
          // a source wider than one answer: a batch of its own, a call for each of its parts
          BlockSource s = waiting.peek().source();
          b.add(s);
          while (!waiting.isEmpty() && waiting.peek().source() == s) {
            call(new Call(owner, List.of(waiting.poll()), local(owner), null, 0));
          }
          continue;
        }
        List<Part> parts = new ArrayList<>();
        while (!waiting.isEmpty() && fits(parts, waiting.peek())) {
          Part p = waiting.poll();
          b.add(p.source());
          parts.add(p);
        }
        call(new Call(owner, parts, local(owner), null, 0));
      }
    }

    /** Whether {@code next} joins the call of {@code parts}: the first always does. */
    private boolean fits(List<Part> parts, Part next) {
      if (parts.isEmpty()) {
        return true;
      }
      return parts.size() < BATCH
          && next.whole()
          && parts.get(0).source().shuffle().equals(next.source().shuffle())
          && plannedBytes(parts, next, local(owner)) <= maxAnswerBytes;
    }
  }

  /** Map outputs located together: active until all their blocks were handed over. */
  private final class Batch {
    final OwnerQueue queue;
    int blocks;

    Batch(OwnerQueue queue) {
      this.queue = queue;
    }

    void add(BlockSource s) {
      batchOf.put(s, this);
      blocks += s.partitions().length;
      unhanded.put(s, s.partitions().length);
      if (!local(queue.owner)) {
        leased.add(s); // a local path is not leased: nothing to release
      }
    }
  }

  /**
   * One locate call: the parts of map outputs it locates, whether it asks for local paths, the READ
   * to issue again from the answer (a relocation) or null (plan every block), and its outcome.
   */
  final class Call implements FetchSignal {
    final Owner owner;
    final List<Part> parts;
    final boolean local;
    final PendingRead reissue;
    final int attempt;

    /** When the owner first answered busy for what this call asks (nanos), or 0. */
    long busySince;

    LocateAnswer answer;
    Throwable failure;

    Call(Owner owner, List<Part> parts, boolean local, PendingRead reissue, int attempt) {
      this.owner = owner;
      this.parts = List.copyOf(parts);
      this.local = local;
      this.reissue = reissue;
      this.attempt = attempt;
    }

    LocateRequest request() {
      int start = Integer.MAX_VALUE;
      int end = 0;
      List<String> maps = new ArrayList<>(parts.size());
      for (Part p : parts) {
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
    boolean local = local(s.owner());
    for (int from = 0; from < s.partitions().length; ) {
      int to = widest(s, from, local);
      q.waiting.add(new Part(s, from, to));
      from = to;
    }
  }

  /** Issues the first batches of every owner. */
  void start() {
    for (OwnerQueue q : owners.values()) {
      q.issue();
    }
  }

  /** Whether nothing is waiting to be located and no call is unanswered. */
  boolean idle() {
    if (outstanding > 0) {
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
   * A block of {@code s} was handed to the consumer: a batch whose blocks are all out ends, and its
   * owner is told this reader is done with it.
   */
  void handedOver(BlockSource s) {
    Integer left = unhanded.computeIfPresent(s, (k, n) -> n > 1 ? n - 1 : null);
    if (left == null && leased.remove(s)) {
      List<BlockSource> done = toRelease.computeIfAbsent(s.owner(), k -> new ArrayList<>());
      done.add(s);
      if (done.size() >= RELEASE_BATCH || asking.getOrDefault(s.owner(), 0) > 0) {
        // at once while this reader waits for an answer there: its own leases must not be what
        // its call waits for
        flushReleases(s.owner());
      }
    }
    Batch b = batchOf.get(s);
    if (b != null && --b.blocks == 0) {
      flushReleases(b.queue.owner);
      b.queue.active--;
      b.queue.issue();
    }
  }

  /** The fetcher closes: every owner is told this reader is done with everything it asked for. */
  void releaseAll() {
    for (BlockSource s : leased) {
      toRelease.computeIfAbsent(s.owner(), k -> new ArrayList<>()).add(s);
    }
    leased.clear();
    for (Owner o : new ArrayList<>(toRelease.keySet())) {
      flushReleases(o);
    }
  }

  /**
   * Tells {@code owner} this reader is done with the map outputs it finished there: one call per
   * shuffle, fire and forget (a lost release only means the leases time out).
   */
  private void flushReleases(Owner owner) {
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
    ctx.counters.relocates.increment();
    // only the partition the READ starts at: the answer's descriptor is what it needs
    int at = Arrays.binarySearch(s.partitions(), r.partition());
    Part p = at >= 0 ? new Part(s, at, at + 1) : new Part(s, 0, s.partitions().length);
    call(new Call(s.owner(), List.of(p), false, r, 0));
  }

  private void call(Call c) {
    // what this reader is done with there goes first: its own leases must not keep it waiting
    flushReleases(c.owner);
    asking.merge(c.owner, 1, Integer::sum);
    outstanding++;
    ctx.counters.locates.increment();
    CompletableFuture<LocateAnswer> f;
    try {
      f = locator.locate(c.owner.address(), ctx.application, c.request());
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete(
        (a, t) -> {
          c.answer = a;
          c.failure = t;
          ctx.segments.signal(c);
        });
  }

  /** Asks again after the retry wait, or gives up with {@code failure}. */
  private void retry(
      Call c, List<Part> parts, boolean local, Kind kind, String why, Throwable cause)
      throws BlockFetchException {
    if (c.attempt >= ctx.options.maxRetries()) {
      Part p = parts.get(0);
      throw ctx.counters.failure(
          kind, p.source(), p.first(), why + " (after " + (c.attempt + 1) + " attempts)", cause);
    }
    ctx.counters.retries.increment();
    outstanding++;
    Call again = new Call(c.owner, parts, local, c.reissue, c.attempt + 1);
    // the wait runs on a timer thread; the call itself is made on the consumer's thread
    CompletableFuture.delayedExecutor(ctx.options.retryWaitMillis(), TimeUnit.MILLISECONDS)
        .execute(() -> ctx.segments.signal(new Retry(again)));
  }

  /**
   * The owner is busy (every registration it may hold is leased to readers still READing): asks
   * again later, backing off, for as long as the reader's patience lasts; nobody is at fault, so
   * the attempts of real failures are not used up. Past its patience the task fails by itself,
   * blaming no map output.
   */
  private void busy(Call c, List<Part> parts, String message) throws BlockFetchException {
    long now = System.nanoTime();
    long since = c.busySince == 0 ? now : c.busySince;
    long waited = now - since;
    if (waited > TimeUnit.MILLISECONDS.toNanos(ctx.options.patienceMillis())) {
      throw ctx.counters.failure(
          Kind.BUSY,
          parts.get(0).source(),
          parts.get(0).first(),
          c.owner.address()
              + " was busy for "
              + TimeUnit.NANOSECONDS.toMillis(waited)
              + " ms: "
              + message,
          null);
    }
    ctx.counters.busy.increment();
    flushReleases(c.owner); // what this reader is done with makes room for what it waits for
    outstanding++;
    Call again = new Call(c.owner, parts, c.local, c.reissue, c.attempt);
    again.busySince = since;
    // 50 ms, doubling with the time waited, never beyond the retry wait
    long backoff =
        Math.min(
            Math.max(50, ctx.options.retryWaitMillis()),
            Math.max(50, TimeUnit.NANOSECONDS.toMillis(waited)));
    CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS)
        .execute(() -> ctx.segments.signal(new Retry(again)));
  }

  /** A retry whose wait is over: issue it on the consumer's thread. */
  record Retry(Call call) implements FetchSignal {}

  /** The consumer's thread: a retry is due. */
  void due(Retry r) {
    outstanding--;
    call(r.call());
  }

  /**
   * The consumer's thread: a call was answered (or failed). Plans the READs (or local reads) of
   * every map output it located, asks again for those the owner could not answer (now, or in this
   * call's bound), and fails where a map output is lost.
   */
  void answered(Call c) throws BlockFetchException {
    outstanding--;
    asking.computeIfPresent(c.owner, (o, n) -> n > 1 ? n - 1 : null);
    if (c.failure != null) {
      Throwable t =
          c.failure instanceof java.util.concurrent.CompletionException
                  && c.failure.getCause() != null
              ? c.failure.getCause()
              : c.failure;
      if (t instanceof CallRefusedException r
          && r.status() == CallRefusedException.TOO_LARGE
          && askForLess(c, c.parts.size() > 1)) {
        return; // an owner that refuses what does not fit instead of answering a prefix
      }
      retry(
          c,
          c.parts,
          c.local,
          Kind.TRANSPORT,
          "could not ask " + c.owner.address() + " where to READ: " + t,
          t);
      return;
    }
    LocateAnswer a = c.answer;
    checkAnswer(c, a);
    List<Part> deferred = new ArrayList<>();
    List<Part> busy = new ArrayList<>();
    String busyWhy = "";
    for (int i = 0; i < c.parts.size(); i++) {
      Part p = c.parts.get(i);
      BlockSource s = p.source();
      Located e = a.maps().get(i);
      switch (e.status()) {
        case OK -> located(c, p, e, a);
        case DEFERRED -> deferred.add(p);
        case BUSY -> {
          busy.add(p);
          busyWhy = e.message();
        }
        case UNAVAILABLE ->
            retry(
                c,
                List.of(p),
                c.local,
                Kind.UNAVAILABLE,
                c.owner.address() + " can't serve map output " + s.map() + " now: " + e.message(),
                null);
        default ->
            throw ctx.counters.failure(
                Kind.MISSING,
                s,
                p.first(),
                c.owner.address()
                    + " answered "
                    + e.status()
                    + " for map output "
                    + s.map()
                    + ": "
                    + e.message(),
                null);
      }
    }
    if (!busy.isEmpty()) {
      busy(c, busy, busyWhy);
    }
    if (deferred.size() == c.parts.size()) {
      if (!askForLess(c, false)) {
        Part p = c.parts.get(0);
        throw ctx.counters.failure(
            Kind.UNAVAILABLE,
            p.source(),
            p.first(),
            c.owner.address()
                + " can't answer even one partition of map output "
                + p.source().map()
                + " within its call.maxAnswerBytes",
            null);
      }
    } else if (!deferred.isEmpty()) {
      // the owner answered what fit its bound: the rest at once, in the same batch
      call(new Call(c.owner, deferred, c.local, c.reissue, c.attempt));
    }
  }

  /**
   * Asks again for what {@code c} asked, in smaller calls: its parts in two halves when {@code
   * halveParts}, else its first part's partitions in two halves (and its other parts in a call of
   * their own), else without local paths. Returns false when there is nothing smaller to ask.
   */
  private boolean askForLess(Call c, boolean halveParts) {
    List<List<Part>> calls = new ArrayList<>();
    int n = c.parts.size();
    Part first = c.parts.get(0);
    if (halveParts && n > 1) {
      calls.add(c.parts.subList(0, n / 2));
      calls.add(c.parts.subList(n / 2, n));
    } else if (first.blocks() > 1 && c.reissue == null) {
      for (Part h : first.halves()) {
        calls.add(List.of(h));
      }
      if (n > 1) {
        calls.add(c.parts.subList(1, n));
      }
    } else if (n > 1) {
      calls.add(List.of(first));
      calls.add(c.parts.subList(1, n));
    } else if (c.local) {
      call(new Call(c.owner, c.parts, false, c.reissue, c.attempt)); // a path is the longest part
      return true;
    } else {
      return false;
    }
    for (List<Part> parts : calls) {
      call(new Call(c.owner, parts, c.local, c.reissue, c.attempt));
    }
    return true;
  }

  private void checkAnswer(Call c, LocateAnswer a) throws BlockFetchException {
    String problem = null;
    if (a.maps().size() != c.parts.size()) {
      problem = "answered " + a.maps().size() + " map outputs, asked for " + c.parts.size();
    } else {
      for (int i = 0; i < c.parts.size() && problem == null; i++) {
        String asked = c.parts.get(i).source().map();
        if (!a.maps().get(i).map().equals(asked)) {
          problem = "answered map output " + a.maps().get(i).map() + " for " + asked;
        }
      }
    }
    if (problem != null) {
      Part p = c.parts.get(0);
      throw ctx.counters.failure(
          Kind.INVALID, p.source(), p.first(), c.owner.address() + " " + problem, null);
    }
  }

  private void located(Call c, Part part, Located e, LocateAnswer a) throws BlockFetchException {
    BlockSource s = part.source();
    for (int i = part.from(); i < part.to(); i++) {
      int p = s.partitions()[i];
      if (p < e.partitions().first() || p >= e.partitions().end()) {
        throw ctx.counters.failure(
            Kind.INVALID,
            s,
            p,
            c.owner.address()
                + " answered partitions "
                + e.partitions()
                + " without partition "
                + p,
            null);
      }
    }
    if (e.data() == null) {
      Path file = Path.of(e.localPath());
      if (canRead(file, e)) {
        ReadPlanner.planLocal(ctx, s, part.from(), part.to(), e.partitions(), file);
      } else {
        // not readable from here (another user, another mount namespace): READ it instead
        call(new Call(c.owner, List.of(part), false, null, c.attempt));
      }
      return;
    }
    if (c.reissue != null) {
      if (!c.reissue.sameLayout(e.partitions())) {
        // re-published under the same id since the READ was planned: its bytes are another
        // output's; never mixed with what was READ of the first
        throw ctx.counters.failure(
            Kind.INVALID,
            s,
            c.reissue.partition(),
            c.owner.address()
                + " now describes map output "
                + s.map()
                + " differently than when its READs were planned (re-published under the same"
                + " id?)",
            null);
      }
      c.reissue.reissue(a.responder(), e.data());
    } else {
      ReadPlanner.planReads(
          ctx, s, part.from(), part.to(), e.partitions(), a.responder(), e.data());
    }
  }

  private static boolean canRead(Path file, Located e) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return ch.size() >= e.partitions().extent();
    } catch (IOException | RuntimeException ex) {
      return false;
    }
  }
}
