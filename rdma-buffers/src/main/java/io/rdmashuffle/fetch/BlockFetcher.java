/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.serve.OutputCatalog;
import io.rdmashuffle.transport.ConnectionPool;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

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
 * <p>Remote work starts first and never waits for the consumer: locate calls go out when the task
 * starts (and the READ connections they will need are opened meanwhile), a batch of located map
 * outputs makes way for the next as soon as its blocks are READ (not when the consumer took them),
 * and every answer, READ completion and retry is dispatched as it arrives, by whoever drives the
 * fetcher: the consumer when it waits for a block, else the process's driver thread ({@link
 * #wake}). So the READs of remote blocks are in flight while the consumer reads the blocks of this
 * process and host. One lock guards the fetcher's state; the driver only ever tries it, so it never
 * waits for a busy consumer (which looks for events itself when it lets go).
 *
 * <p>One consumer thread (the task's) calls {@link #next}, reads the streams and closes them;
 * {@link #close()} may come from another thread (a task completion listener) and releases
 * everything: streams still read elsewhere then fail with an {@code IOException}.
 */
public final class BlockFetcher implements AutoCloseable {
  private static final long WAIT_SLICE_MILLIS = 100;

  private final String application;
  private final OutputCatalog own;
  private final ConnectionPool connections;
  private final FetchOptions options;
  private final ReadCounters counters;
  private final Runnable onWait;
  private final Executor driver;

  /**
   * Held by whoever drives the fetcher (the consumer, or the driver thread while the consumer is
   * busy): guards everything below.
   */
  private final ReentrantLock lock = new ReentrantLock();

  private final AtomicBoolean driveQueued = new AtomicBoolean();

  /** True while the consumer waits inside the segment fetcher: it sees every event itself. */
  private volatile boolean consumerWaiting;

  private final BlockHandOver blocks = new BlockHandOver();
  private final BlockLedger ledger = new BlockLedger();
  private final Set<Owner> prepared = new HashSet<>();
  private final SegmentFetcher segments;
  private final FetchContext ctx;
  private final Locates locates;
  private final ResultDispatch results;

  /** The failure a driver found; the consumer gets it from its next call. */
  private BlockFetchException failure;

  private long waitNanos;
  private boolean started;
  private volatile boolean closed;

  /**
   * @param own the map outputs this process serves (read from their files), or null
   * @param driver runs this fetcher's driving (answers planned, READs posted as they arrive) while
   *     its consumer is busy elsewhere: the process's fetch driver thread
   * @param onWait called about every 100 ms while the consumer waits (engines check for task
   *     cancellation there; it may throw)
   */
  public BlockFetcher(
      String application,
      Locator locator,
      OutputCatalog own,
      ConnectionPool connections,
      BufferPool buffers,
      FetchOptions options,
      ReadCounters counters,
      Executor driver,
      Runnable onWait) {
    this.application = application;
    this.own = own;
    this.connections = connections;
    this.options = options;
    this.counters = counters;
    this.driver = driver;
    this.onWait = onWait;
    this.segments =
        new SegmentFetcher(
            connections, buffers, options.limits(), () -> counters.increment(ReadCounter.RETRIES));
    this.ctx =
        new FetchContext(
            application,
            segments,
            blocks.ready,
            counters,
            options,
            this::pump,
            new CorruptionDiagnosis(application, locator),
            this::settled);
    this.locates = new Locates(ctx, locator);
    this.results = new ResultDispatch(locates, counters);
    segments.onEvent(this::wake);
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
   * located when {@link #start} (or the first {@link #next}) is called, and the connections their
   * READs will need are opened in the background now.
   */
  public void add(BlockSource s) throws BlockFetchException {
    lock.lock();
    try {
      if (started) {
        throw new IllegalStateException("sources are added before the first block is taken");
      }
      ledger.expect(s);
      if (s.owner().thisProcess() && own != null && options.readLocal()) {
        addOwn(s);
        return;
      }
      locates.add(s);
      Owner o = s.owner();
      if (!(o.sameHost() && options.readLocal()) && prepared.add(o)) {
        connections.prepare(o.address(), application);
      }
    } finally {
      unlock();
    }
  }

  private void addOwn(BlockSource s) throws BlockFetchException {
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
  }

  /**
   * Sends the locate calls of every source added: their answers are planned and their READs posted
   * as they arrive, while the consumer reads blocks of this process and host. Idempotent; the first
   * {@link #next} calls it too.
   */
  public void start() {
    lock.lock();
    try {
      startLocked();
    } finally {
      unlock(); // an answer that came meanwhile found the driver locked out: it is driven now
    }
  }

  private void startLocked() {
    if (!started) {
      started = true;
      locates.start();
    }
  }

  /**
   * The next block, or null when every block was handed over. Answers and READs that arrived are
   * dispatched first, so remote READs go out before the consumer reads local blocks.
   *
   * @throws BlockFetchException when a block can't be read; the fetcher is unusable afterwards
   * @throws InterruptedException when the task's thread was interrupted while waiting
   */
  public Block next() throws BlockFetchException, InterruptedException {
    while (true) {
      lock.lock();
      try {
        checkUsable();
        startLocked();
        drainLocked();
        checkUsable(); // a failure dispatched just now is thrown, never taken for the end
        Block b = handOver();
        if (b != null) {
          return b;
        }
        if (segments.outstanding() == 0 && locates.idle()) {
          ledger.checkNothingOwed(); // never the end while a block was neither read nor failed
          return null;
        }
      } finally {
        unlock();
      }
      try {
        pump(null, () -> !blocks.ready.isEmpty());
      } catch (InterruptedIOException e) {
        throw new InterruptedException(e.getMessage());
      } catch (BlockFetchException e) {
        throw e;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * The block that follows {@code previous} in its map output (the same output, the next partition
   * asked for) when it is ready now, else null; never waits. Lets a consumer read a run of blocks
   * of one map output as one stream, as Spark reads contiguous partitions in a batch.
   *
   * @throws BlockFetchException when a block can't be read; the fetcher is unusable afterwards
   */
  public Block nextFollowing(Block previous) throws BlockFetchException {
    lock.lock();
    try {
      checkUsable();
      drainLocked();
      checkUsable();
      Block head = blocks.ready.peek();
      return head != null && follows(previous, head) ? handOver() : null;
    } finally {
      unlock();
    }
  }

  /** Whether {@code next} is the partition asked for right after {@code previous}'s. */
  static boolean follows(Block previous, Block next) {
    BlockSource s = previous.source();
    if (next.source() != s) {
      return false;
    }
    int i = Arrays.binarySearch(s.partitions(), previous.partition());
    return i >= 0 && i + 1 < s.partitions().length && s.partitions()[i + 1] == next.partition();
  }

  /** Under the lock: {@code b} needs nothing more from its owner ({@link FetchContext#settled}). */
  private void settled(Block b) {
    locates.settled(b.source());
  }

  /** Under the lock: the fetcher is open and nothing failed. */
  private void checkUsable() throws BlockFetchException {
    if (closed) {
      throw new IllegalStateException("block fetcher is closed");
    }
    if (failure != null) {
      throw failure.again();
    }
  }

  /** Under the lock: the next ready block, checked and counted, or null when none is ready. */
  private Block handOver() throws BlockFetchException {
    Block b;
    try {
      b = blocks.next();
    } catch (BlockFetchException e) {
      failure = e;
      throw e;
    }
    if (b == null) {
      return null;
    }
    ledger.handedOver(b.source());
    ctx.settled(b); // a streamed block's later segments are the consumer's to wait for
    counters.increment(b.remote() ? ReadCounter.BLOCKS_REMOTE : ReadCounter.BLOCKS_LOCAL);
    counters.add(b.remote() ? ReadCounter.BYTES_REMOTE : ReadCounter.BYTES_LOCAL, b.size());
    return b;
  }

  /**
   * Waits, a slice at a time, until {@code arrived} holds, dispatching what comes (READs, locate
   * answers, retries coming due). Also run by streams waiting for their next segment, naming it as
   * {@code needed}. Holds the lock only a wait slice at a time, so a {@link #close()} from another
   * thread gets in within one slice; returns after one result or one empty slice, for the caller to
   * look again.
   */
  private void pump(SegmentRequest needed, BooleanSupplier arrived) throws IOException {
    long t0 = System.nanoTime();
    try {
      lock.lock();
      try {
        if (closed) {
          throw new IOException("block fetcher closed while a block was read");
        }
        checkUsable();
        if (arrived.getAsBoolean()) {
          return;
        }
        consumerWaiting = true;
        SegmentFetcher.Result r;
        try {
          r = segments.take(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS, needed);
        } finally {
          consumerWaiting = false;
        }
        if (r != null) {
          dispatchOrFail(r);
          drainLocked();
          return;
        }
      } finally {
        unlock();
      }
      onWait.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for a READ");
    } finally {
      waitNanos += System.nanoTime() - t0;
    }
  }

  /**
   * Something arrived for this fetcher (on a transport thread, a timer, a connection opener):
   * unless its consumer waits for it already, the driver thread dispatches it now, so answers are
   * planned and READs posted while the consumer reads other blocks.
   */
  private void wake() {
    if (closed || consumerWaiting || !driveQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      driver.execute(this::drive);
    } catch (RejectedExecutionException e) {
      driveQueued.set(false); // the process is closing: the consumer dispatches what remains
    }
  }

  /** The driver thread's turn: dispatches what arrived, unless the consumer holds the lock. */
  private void drive() {
    driveQueued.set(false);
    if (!lock.tryLock()) {
      return; // the consumer drives; it looks for events again when it lets go
    }
    try {
      if (!closed) {
        drainLocked();
      }
    } finally {
      unlock();
    }
  }

  /**
   * Lets go of the lock; events that came meanwhile and nobody saw are driven now. Every holder but
   * {@link #close()} lets go through here: the driver only tries the lock, so an event that arrives
   * while another holds it is that holder's to hand on.
   */
  private void unlock() {
    lock.unlock();
    if (!closed && segments.hasEvents() && !lock.isLocked()) {
      wake();
    }
  }

  /**
   * Under the lock: dispatches every result that arrived and admits what the bounds allow, never
   * waiting. A failure is kept for the consumer.
   */
  private void drainLocked() {
    if (failure != null || closed) {
      return;
    }
    SegmentFetcher.Result r;
    while ((r = segments.poll()) != null) {
      try {
        dispatchOrFail(r);
      } catch (BlockFetchException e) {
        return;
      }
    }
  }

  private void dispatchOrFail(SegmentFetcher.Result r) throws BlockFetchException {
    try {
      results.dispatch(r);
    } catch (BlockFetchException e) {
      if (failure == null) {
        failure = e;
      }
      throw e;
    }
  }

  /** Releases every block, handed over or not, and stops READing. Idempotent; any thread. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    lock.lock();
    try {
      // the consumer, if it waits, is out of its wait slice: nothing of ours is in use
      locates.releaseAll();
      segments.close();
      blocks.releaseAll();
    } finally {
      lock.unlock();
    }
  }
}
