package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateRequest;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The locate calls of one {@link BlockFetcher}: it asks each owner where to READ its map outputs in
 * batches (one call per {@value #BATCH} map outputs of an owner), keeps at most {@value
 * #ACTIVE_PER_OWNER} batches of an owner being read at once (an owner registers what it is asked
 * for, so asking for everything at once would make it deregister outputs before they are read),
 * plans the READs of each answer, and asks again when an owner could not answer or withdrew a
 * registration meanwhile. Answers arrive on transport threads and are handed to the consumer's
 * thread as signals of the segment fetcher. Consumer thread only.
 */
final class Locates {
  static final int BATCH = 32;
  static final int ACTIVE_PER_OWNER = 2;

  private final FetchContext ctx;
  private final Locator locator;
  private final Map<BlockFetcher.Owner, OwnerQueue> owners = new LinkedHashMap<>();
  private final IdentityHashMap<BlockFetcher.Source, Batch> batchOf = new IdentityHashMap<>();

  /** How often each READ was located again. */
  private final IdentityHashMap<PendingRead, Integer> relocations = new IdentityHashMap<>();

  private int outstanding;

  Locates(FetchContext ctx, Locator locator) {
    this.ctx = ctx;
    this.locator = locator;
  }

  /** One owner's map outputs waiting to be located, and how many of its batches are active. */
  private final class OwnerQueue {
    final BlockFetcher.Owner owner;
    final ArrayDeque<BlockFetcher.Source> waiting = new ArrayDeque<>();
    int active;

    OwnerQueue(BlockFetcher.Owner owner) {
      this.owner = owner;
    }

    void issue() {
      while (active < ACTIVE_PER_OWNER && !waiting.isEmpty()) {
        List<BlockFetcher.Source> sources = new ArrayList<>();
        while (sources.size() < BATCH
            && !waiting.isEmpty()
            && (sources.isEmpty() || sources.get(0).shuffle().equals(waiting.peek().shuffle()))) {
          sources.add(waiting.poll());
        }
        Batch b = new Batch(this);
        for (BlockFetcher.Source s : sources) {
          batchOf.put(s, b);
          b.blocks += s.partitions().length;
        }
        active++;
        call(new Call(owner, sources, owner.sameHost() && ctx.options.readLocal(), null, 0));
      }
    }
  }

  /** Map outputs located together: active until all their blocks were handed over. */
  private static final class Batch {
    final OwnerQueue queue;
    int blocks;

    Batch(OwnerQueue queue) {
      this.queue = queue;
    }
  }

  /**
   * One locate call: its map outputs, whether it asks for local paths, the READ to issue again from
   * the answer (a relocation) or null (plan every block), and its outcome.
   */
  final class Call {
    final BlockFetcher.Owner owner;
    final List<BlockFetcher.Source> sources;
    final boolean local;
    final PendingRead reissue;
    final int attempt;
    LocateAnswer answer;
    Throwable failure;

    Call(
        BlockFetcher.Owner owner,
        List<BlockFetcher.Source> sources,
        boolean local,
        PendingRead reissue,
        int attempt) {
      this.owner = owner;
      this.sources = sources;
      this.local = local;
      this.reissue = reissue;
      this.attempt = attempt;
    }

    LocateRequest request() {
      int start = Integer.MAX_VALUE;
      int end = 0;
      List<String> maps = new ArrayList<>(sources.size());
      for (BlockFetcher.Source s : sources) {
        maps.add(s.map());
        start = Math.min(start, s.partitions()[0]);
        end = Math.max(end, s.partitions()[s.partitions().length - 1] + 1);
      }
      return new LocateRequest(sources.get(0).shuffle(), maps, start, end, local);
    }
  }

  /** Queues a map output to locate; call {@link #start} once every source was added. */
  void add(BlockFetcher.Source s) {
    owners.computeIfAbsent(s.owner(), OwnerQueue::new).waiting.add(s);
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

  /** A block of {@code s} was handed to the consumer: a batch whose blocks are all out ends. */
  void handedOver(BlockFetcher.Source s) {
    Batch b = batchOf.get(s);
    if (b != null && --b.blocks == 0) {
      b.queue.active--;
      b.queue.issue();
    }
  }

  /**
   * The owner withdrew what {@code r} READs from: asks it again, then issues {@code r} anew. An
   * owner that keeps withdrawing it (more than the retries allow) can't serve it.
   */
  void relocate(PendingRead r, Throwable why) throws BlockFetchException {
    int n = relocations.merge(r, 1, Integer::sum);
    BlockFetcher.Source s = r.source();
    if (n > ctx.options.maxRetries() + 1) {
      throw ctx.counters.failure(
          Kind.UNAVAILABLE,
          s,
          r.partition(),
          s.owner().address() + " withdrew the map output " + n + " times while it was READ",
          why);
    }
    ctx.counters.relocates.increment();
    call(new Call(s.owner(), List.of(s), false, r, 0));
  }

  private void call(Call c) {
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
      Call c,
      List<BlockFetcher.Source> sources,
      boolean local,
      Kind kind,
      String why,
      Throwable cause)
      throws BlockFetchException {
    if (c.attempt >= ctx.options.maxRetries()) {
      BlockFetcher.Source s = sources.get(0);
      throw ctx.counters.failure(
          kind, s, s.partitions()[0], why + " (after " + (c.attempt + 1) + " attempts)", cause);
    }
    ctx.counters.retries.increment();
    outstanding++;
    Call again = new Call(c.owner, sources, local, c.reissue, c.attempt + 1);
    // the wait runs on a timer thread; the call itself is made on the consumer's thread
    CompletableFuture.delayedExecutor(ctx.options.retryWaitMillis(), TimeUnit.MILLISECONDS)
        .execute(() -> ctx.segments.signal(new Retry(again)));
  }

  /** A retry whose wait is over: issue it on the consumer's thread. */
  record Retry(Call call) {}

  /** The consumer's thread: a retry is due. */
  void due(Retry r) {
    outstanding--;
    call(r.call());
  }

  /**
   * The consumer's thread: a call was answered (or failed). Plans the READs (or local reads) of
   * every map output it located, asks again where the owner could not answer, and fails where a map
   * output is lost.
   */
  void answered(Call c) throws BlockFetchException {
    outstanding--;
    if (c.failure != null) {
      Throwable t =
          c.failure instanceof java.util.concurrent.CompletionException
                  && c.failure.getCause() != null
              ? c.failure.getCause()
              : c.failure;
      retry(
          c,
          c.sources,
          c.local,
          Kind.TRANSPORT,
          "could not ask " + c.owner.address() + " where to READ: " + t,
          t);
      return;
    }
    LocateAnswer a = c.answer;
    checkAnswer(c, a);
    for (int i = 0; i < c.sources.size(); i++) {
      BlockFetcher.Source s = c.sources.get(i);
      Located e = a.maps().get(i);
      switch (e.status()) {
        case OK -> located(c, s, e, a);
        case UNAVAILABLE, BUSY ->
            retry(
                c,
                List.of(s),
                c.local,
                Kind.UNAVAILABLE,
                c.owner.address() + " can't serve map output " + s.map() + " now: " + e.message(),
                null);
        default ->
            throw ctx.counters.failure(
                Kind.MISSING,
                s,
                s.partitions()[0],
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
  }

  private void checkAnswer(Call c, LocateAnswer a) throws BlockFetchException {
    String problem = null;
    if (a.maps().size() != c.sources.size()) {
      problem = "answered " + a.maps().size() + " map outputs, asked for " + c.sources.size();
    } else {
      for (int i = 0; i < c.sources.size() && problem == null; i++) {
        if (!a.maps().get(i).map().equals(c.sources.get(i).map())) {
          problem =
              "answered map output " + a.maps().get(i).map() + " for " + c.sources.get(i).map();
        }
      }
    }
    if (problem != null) {
      BlockFetcher.Source s = c.sources.get(0);
      throw ctx.counters.failure(
          Kind.INVALID, s, s.partitions()[0], c.owner.address() + " " + problem, null);
    }
  }

  private void located(Call c, BlockFetcher.Source s, Located e, LocateAnswer a)
      throws BlockFetchException {
    for (int p : s.partitions()) {
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
        ReadPlanner.planLocal(ctx, s, e.partitions(), file);
      } else {
        // not readable from here (another user, another mount namespace): READ it instead
        call(new Call(c.owner, List.of(s), false, null, c.attempt));
      }
      return;
    }
    if (c.reissue != null) {
      c.reissue.reissue(a.responder(), e.data());
    } else {
      ReadPlanner.planReads(ctx, s, e.partitions(), a.responder(), e.data());
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
