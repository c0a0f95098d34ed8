package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.serve.OutputCatalog;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Reads the blocks (partitions of map outputs) one reduce task needs and hands them over one at a
 * time, in the order they become available. The engine-neutral core of the Spark reader.
 *
 * <ul>
 *   <li>Map outputs this process serves are read from their files, and so are those of other
 *       processes on this host when their owner says where the file is ({@code readLocal}).
 *   <li>Others are located ({@link Locates}: one call per batch of an owner's outputs), then READ
 *       into pooled registered buffers through a {@link SegmentFetcher} ({@link ReadPlanner}: small
 *       consecutive blocks together, large ones streamed in segments).
 *   <li>Every block's checksum is verified: before the consumer sees it for a block READ whole, as
 *       it is consumed (and at the latest when closed) for a streamed or local one. A mismatch is a
 *       {@link BlockFetchException}, never wrong data.
 *   <li>Failures say whose they are ({@link BlockFetchException.Kind}): a lost or unreachable map
 *       output after every retry blames it; the reader's own shortage of buffers blames nobody
 *       else. A withdrawn registration is located again, not failed.
 * </ul>
 *
 * <p>One consumer thread (the task's) calls {@link #next}, reads the streams and closes them;
 * {@link #close()} may come from another thread (a task completion listener) and releases
 * everything: streams still read elsewhere then fail with an {@code IOException}.
 */
public final class BlockFetcher implements AutoCloseable {
  private static final long WAIT_SLICE_MILLIS = 100;

  /** Handed-over blocks tracked before released ones are dropped from the set. */
  private static final int PRUNE_AT = 1024;

  /**
   * How one task fetches.
   *
   * @param maxBytesInFlight bytes READ or in flight and not yet consumed (the task's share)
   * @param segmentSize largest single READ of block data
   * @param readLocal read map outputs on this host from their files
   * @param verify check every block's checksum
   * @param allocationWaitMillis how long to wait for a READ buffer before failing the task
   * @param maxRetries how often a failed READ or locate call is tried again
   * @param retryWaitMillis how long before each retry
   */
  public record Options(
      long maxBytesInFlight,
      int maxRequestsInFlight,
      int segmentSize,
      boolean readLocal,
      boolean verify,
      long allocationWaitMillis,
      int maxRetries,
      long retryWaitMillis) {}

  /**
   * The process serving some map outputs: its transport address, whether it runs on this host, and
   * whether it is this very process.
   */
  public record Owner(PeerAddress address, boolean sameHost, boolean thisProcess) {}

  /** One map output and the partitions wanted from it, with the engine's tag for each. */
  public record Source(Owner owner, String shuffle, String map, int[] partitions, Object tag) {
    public Source {
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

  private final String application;
  private final OutputCatalog own;
  private final Options options;
  private final ReadCounters counters;
  private final Runnable onWait;
  private final ArrayDeque<Block> ready = new ArrayDeque<>();
  private final Set<Block> open = Collections.newSetFromMap(new IdentityHashMap<>());
  private final SegmentFetcher segments;
  private final FetchContext ctx;
  private final Locates locates;
  private long waitNanos;
  private boolean started;
  private volatile boolean closed;

  /**
   * @param own the map outputs this process serves (read from their files), or null
   * @param onWait called about every 100 ms while the consumer waits (engines check for task
   *     cancellation there; it may throw)
   */
  public BlockFetcher(
      String application,
      Locator locator,
      OutputCatalog own,
      ConnectionPool connections,
      BufferPool buffers,
      Options options,
      ReadCounters counters,
      Runnable onWait) {
    this.application = application;
    this.own = own;
    this.options = options;
    this.counters = counters;
    this.onWait = onWait;
    this.segments =
        new SegmentFetcher(
            connections,
            buffers,
            new SegmentLimits(
                options.maxBytesInFlight(),
                options.maxRequestsInFlight(),
                options.allocationWaitMillis(),
                options.maxRetries(),
                options.retryWaitMillis()),
            counters.retries::increment);
    this.ctx = new FetchContext(application, segments, ready, counters, options, this::pump);
    this.locates = new Locates(ctx, locator);
  }

  /** Nanoseconds the consumer waited for blocks so far. */
  public long waitNanos() {
    return waitNanos;
  }

  /** Registered bytes this task's READs hold now (tests, metrics). */
  public long bytesHeld() {
    return segments.bytesHeld();
  }

  /**
   * Queues the blocks of one map output. This process's own are looked up at once; the others are
   * located when {@link #next} is first called.
   */
  public void add(Source s) throws BlockFetchException {
    if (started) {
      throw new IllegalStateException("sources are added before the first block is taken");
    }
    if (s.owner().thisProcess() && own != null && options.readLocal()) {
      OutputCatalog.Described d;
      try {
        d = own.describe(new OutputId(application, s.shuffle(), s.map()));
      } catch (NoSuchFileException e) {
        throw counters.failure(
            Kind.MISSING, s, s.partitions()[0], "this process does not serve the map output", e);
      } catch (IOException | IllegalArgumentException e) {
        throw counters.failure(
            Kind.LOCAL, s, s.partitions()[0], "the map output can't be read here: " + e, e);
      }
      ReadPlanner.planLocal(ctx, s, d.table(), d.path());
      return;
    }
    locates.add(s);
  }

  /**
   * The next block, or null when every block was handed over.
   *
   * @throws BlockFetchException when a block can't be read; the fetcher is unusable afterwards
   * @throws InterruptedException when the task's thread was interrupted while waiting
   */
  public Block next() throws BlockFetchException, InterruptedException {
    if (closed) {
      throw new IllegalStateException("block fetcher is closed");
    }
    if (!started) {
      started = true;
      locates.start();
    }
    while (true) {
      Block b = handOver();
      if (b != null) {
        return b;
      }
      synchronized (this) {
        if (segments.outstanding() == 0 && locates.idle()) {
          return null;
        }
      }
      try {
        pump(null);
      } catch (InterruptedIOException e) {
        throw new InterruptedException(e.getMessage());
      } catch (BlockFetchException e) {
        throw e;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** The next ready block, checked and counted, or null when none is ready. */
  private synchronized Block handOver() throws BlockFetchException {
    if (closed) {
      throw new IllegalStateException("block fetcher is closed");
    }
    Block b = ready.poll();
    if (b == null) {
      return null;
    }
    b.verifyBeforeHandOver();
    if (open.size() >= PRUNE_AT) {
      open.removeIf(Block::isReleased);
    }
    open.add(b);
    locates.handedOver(b.source());
    (b.remote() ? counters.remoteBlocks : counters.localBlocks).increment();
    (b.remote() ? counters.remoteBytes : counters.localBytes).add(b.size());
    return b;
  }

  /**
   * Waits for one result (a READ, a locate answer, a retry coming due) and puts it where it
   * belongs. Also run by streams waiting for their next segment, naming it as {@code needed}. Holds
   * this fetcher's lock only a wait slice at a time, so a {@link #close()} from another thread gets
   * in within one slice.
   */
  private void pump(SegmentRequest needed) throws IOException {
    long t0 = System.nanoTime();
    try {
      while (true) {
        synchronized (this) {
          if (closed) {
            throw new IOException("block fetcher closed while a block was read");
          }
          SegmentFetcher.Result r = segments.take(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS, needed);
          if (r != null) {
            dispatch(r);
            return;
          }
        }
        onWait.run();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for a READ");
    } finally {
      waitNanos += System.nanoTime() - t0;
    }
  }

  private void dispatch(SegmentFetcher.Result r) throws BlockFetchException {
    if (r instanceof FetchedSegment f) {
      ((PendingRead) f.request().tag()).arrived(f);
    } else if (r instanceof SegmentFetcher.Failed f) {
      failed((PendingRead) f.request().tag(), f);
    } else {
      Object event = ((SegmentFetcher.Signal) r).event();
      if (event instanceof Locates.Retry due) {
        locates.due(due);
      } else {
        locates.answered((Locates.Call) event);
      }
    }
  }

  private void failed(PendingRead read, SegmentFetcher.Failed f) throws BlockFetchException {
    Source s = read.source();
    if (f.shortage()) {
      throw counters.failure(
          Kind.SHORTAGE,
          s,
          read.partition(),
          "this task could not get READ buffers: " + f.cause().getMessage(),
          f.cause());
    }
    if (f.refusedByOwner()) {
      // withdrawn (the owner deregistered it to make room, or restarted): ask where it is now
      locates.relocate(read, f.cause());
      return;
    }
    throw counters.failure(
        Kind.TRANSPORT,
        s,
        read.partition(),
        "READ from " + s.owner().address() + " failed: " + f.cause().getMessage(),
        f.cause());
  }

  /** Releases every block, handed over or not, and stops READing. Idempotent; any thread. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    synchronized (this) {
      // the consumer, if it waits, is out of its wait slice: nothing of ours is in use
      segments.close();
      for (Block b : ready) {
        b.release();
      }
      ready.clear();
      for (Block b : new ArrayList<>(open)) {
        b.release();
      }
      open.clear();
    }
  }
}
