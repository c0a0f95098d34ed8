/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.engine.ConnectionTable;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completion side of the verbs engine, one per completion queue (Agrona's agent): each call of
 * {@link #doWork} runs the commands other threads handed in, polls completions and ends the READs
 * they name (completing them, or failing them and breaking their channel), and enforces the read
 * timeout. Posting is not here: a channel's posters ring its doorbell themselves.
 *
 * <p>Whoever waits polls: the duty cycle runs under a {@link PollerLock}, held by one thread at a
 * time. The {@link VerbsAgentRunner}'s thread (or a test's) takes it for {@link #doWork}, {@link
 * #park}'s look before blocking (never while blocked), {@link #breakChannel} and {@link #shutdown};
 * a reader about to block for its READs takes it, when free, to poll and deliver completions itself
 * ({@link #help}: everyone's, exactly as the agent thread would, but neither commands nor timeouts,
 * which stay the agent thread's). What the comments call "agent thread" is the lock's holder.
 * {@link #submit}, {@link #breakLater}, {@link #fail} and {@link #register} are for any thread.
 * Nothing on the READ path allocates.
 *
 * <p>A work request id is {@code key << 32 | sequence}: the channel's key in a {@link
 * ConnectionTable} (its index and a generation) and the low bits of the READ's sequence number in
 * the channel's work request ring, so a late completion of an ended channel, or of a READ already
 * ended, matches nothing.
 *
 * <p>The channels and the completion queue room they reserve are a {@link ChannelRoom}'s; what a
 * completion ends is found and delivered by a {@link CompletionDelivery}.
 */
public final class VerbsAgent {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsAgent.class);
  public static final int POLL_BATCH = 32;

  private final CompletionQueue cq;
  private final TransportMetrics metrics;
  private final long timeoutNanos;
  private final long checkIntervalNanos;
  private final ChannelRoom channels;
  private final AgentCommands commands;
  private final PollerLock poller;
  private final ChannelEnding ending;
  private final long waitSpinNanos;

  // ---- guarded by poller (the "agent thread")
  private final ReadOutcomes outcomes;
  private final Doorbells doorbells = new Doorbells();
  private final CompletionDelivery delivery;
  private long nextCheck;

  /** The agent thread ended: the completion queue may be destroyed, nobody polls it anymore. */
  private boolean stopped;

  /**
   * The agent thread parked without arming the completion queue, beside polling readers: a reader
   * that stops polling without its READs done arms it. Written under the poller lock.
   */
  private volatile boolean parkedUnarmed;

  /**
   * How long the agent thread parks without arming, beside polling readers, at first and at most:
   * each park that ends with nothing for its own round doubles the next (readers find every
   * completion themselves, and every wake-up of this thread takes CPU from them); a round that
   * finds a completion nobody polled for makes it short again.
   */
  static final int UNARMED_PARK_MILLIS = 1;

  static final int UNARMED_PARK_MAX_MILLIS = 8;

  /** The next park beside readers (agent thread only). */
  private int unarmedParkMillis = UNARMED_PARK_MILLIS;

  /**
   * @param cqEntries entries of the completion queue: the READs of all channels together
   * @param maxDepth the deepest send queue a channel may have
   * @param onEnded told (agent thread) when a channel ended and its READs were delivered
   * @param waitSpinNanos how long a waiting reader polls itself before it parks ({@link #help})
   */
  public VerbsAgent(
      CompletionQueue cq,
      int cqEntries,
      int maxDepth,
      TransportMetrics metrics,
      long timeoutNanos,
      Consumer<VerbsReadChannel> onEnded,
      long waitSpinNanos) {
    this.cq = cq;
    this.waitSpinNanos = Math.max(0, waitSpinNanos);
    this.poller = new PollerLock();
    this.metrics = metrics;
    this.timeoutNanos = timeoutNanos;
    this.checkIntervalNanos =
        Math.max(
            TimeUnit.MILLISECONDS.toNanos(1),
            Math.min(TimeUnit.MILLISECONDS.toNanos(100), timeoutNanos / 10));
    this.channels = new ChannelRoom(cqEntries, maxDepth);
    EndedReads ended = new EndedReads(maxDepth);
    this.outcomes = new ReadOutcomes(metrics);
    this.commands = new AgentCommands(cq);
    this.ending = new ChannelEnding(channels, ended, outcomes, metrics, timeoutNanos, onEnded);
    this.delivery =
        new CompletionDelivery(cq, channels, ended, outcomes, ending, doorbells, metrics);
  }

  static long wrId(int key, long sequence) {
    return ((long) key << 32) | (sequence & 0xffff_ffffL);
  }

  /** How long {@link #park} should block at most: until the next timeout check is due. */
  public int parkMillis() {
    return (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(checkIntervalNanos));
  }

  /** The deepest send queue a new channel can get now (0: the completion queue is full). */
  public int depthAvailable(int wanted) {
    return channels.depthAvailable(wanted);
  }

  /**
   * Makes a channel's completions findable and reserves its depth of completion queue entries;
   * before this the channel posts nothing. Any thread.
   *
   * @throws IOException when the completion queue has no room left for it
   */
  public void register(VerbsReadChannel ch) throws IOException {
    channels.register(ch);
  }

  // ------------------------------------------------------------ any thread

  /** Runs {@code command} on the agent's thread, soon. */
  public void submit(Runnable command) {
    commands.submit(command);
  }

  /** Breaks {@code ch} on the agent's thread, soon. */
  public void breakLater(VerbsReadChannel ch, TransportException cause) {
    submit(() -> breakChannel(ch, cause));
  }

  /** Fails a READ through its listener, counting it. */
  public void fail(ReadOp op, TransportException e) {
    outcomes.fail(op, e);
  }

  // ------------------------------------------------------------ agent thread

  /**
   * Whether the caller runs a round now (the agent thread, or a reader polling while it waits: a
   * listener posting more READs): its posts are rung after the round's completions, many per
   * doorbell.
   */
  boolean onAgentThread() {
    return doorbells.isAgentThread();
  }

  /** Agent thread: rings {@code ch}'s doorbell once this round's completions are delivered. */
  void postLater(VerbsReadChannel ch) {
    doorbells.later(ch);
  }

  /**
   * One round of the duty cycle, under the poller lock (waiting for a reader's round to end);
   * returns how much it did (0: nothing).
   */
  public int doWork() {
    enterRound();
    try {
      int work = commands.runAll() + pollOwn();
      long now = System.nanoTime();
      if (now - nextCheck >= 0) {
        ending.checkTimeouts(now);
        nextCheck = now + checkIntervalNanos;
      }
      return work;
    } finally {
      leaveRound();
    }
  }

  /**
   * Idles until a completion, a command or {@code timeoutMillis}: under the poller lock arms the
   * completion queue and looks once more (a completion or a command may have come before the
   * arming); then, the lock released so waiting readers can poll, blocks.
   */
  public void park(int timeoutMillis) {
    idle(timeoutMillis, true);
  }

  /**
   * Whether readers poll now or did lately ({@link PollerLock#readersActive}): the agent thread
   * then skips its own spinning and parks beside them ({@link #parkBesideReaders}).
   */
  public boolean readersActive() {
    return poller.readersActive();
  }

  /**
   * Parks while readers poll: for {@link #UNARMED_PARK_MILLIS} to {@link #UNARMED_PARK_MAX_MILLIS}
   * (see there) or until a command, without arming the completion queue, so a completion a reader
   * finds by polling wakes no thread (where vCPUs take turns on one emulator thread, a wake-up
   * delays the reader). Completions of READs nobody polls for are found by the next reader's round
   * or this thread's within that time; a reader that stops polling with its READs not done arms the
   * queue first ({@link #help}).
   */
  public void parkBesideReaders() {
    int park = unarmedParkMillis;
    // never past the next timeout check
    unarmedParkMillis = Math.min(Math.min(UNARMED_PARK_MAX_MILLIS, parkMillis()), 2 * park);
    idle(park, false);
  }

  /**
   * Under the poller lock: arms the completion queue when {@code arm} (else notes that it parks
   * unarmed) and looks once more; then, the lock released, blocks for {@code timeoutMillis} at
   * most.
   */
  private void idle(int timeoutMillis, boolean arm) {
    enterRound();
    try {
      parkedUnarmed = !arm;
      if (arm) {
        cq.arm();
      }
      if (!commands.isEmpty() || pollOwn() > 0) {
        return;
      }
    } catch (IOException e) {
      metrics.engineError();
      LOG.warn("arming the completion queue failed; retrying", e);
      return;
    } finally {
      leaveRound();
    }
    try {
      cq.await(timeoutMillis);
    } catch (IOException e) {
      metrics.engineError();
      LOG.warn("waiting for completions failed; retrying", e);
    }
  }

  /** Takes the poller lock (waiting for a reader's round to end) and starts a round. */
  private void enterRound() {
    poller.lock();
    doorbells.beginRound();
  }

  /** Rings the round's deferred doorbells and releases the poller lock. */
  private void leaveRound() {
    doorbells.endRound();
    poller.unlock();
  }

  // ------------------------------------------------------------ waiting readers

  /**
   * A reader about to block until {@code ready} holds polls the completion queue itself, whenever
   * no other thread does, for at most {@code maxNanos} and the wait spin setting: it delivers every
   * completion it finds (its own and others'), then rings the doorbells of what their listeners
   * posted. Returns whether {@code ready} holds. Any thread but the agent's.
   */
  public boolean help(BooleanSupplier ready, long maxNanos) {
    if (poller.help(ready, Math.min(maxNanos, waitSpinNanos), this::helpRound)) {
      return true;
    }
    if (parkedUnarmed && !poller.isHeldByCurrentThread()) {
      armForParkedAgent(); // this reader blocks now: the agent thread must hear of completions
    }
    return ready.getAsBoolean();
  }

  private void armForParkedAgent() {
    enterRound();
    try {
      if (parkedUnarmed && !stopped) {
        parkedUnarmed = false;
        cq.arm();
        delivery.poll(); // what completed before the arming
      }
    } catch (IOException e) {
      metrics.engineError();
      LOG.warn("arming the completion queue failed", e);
      cq.wake(); // the agent thread arms it itself
    } finally {
      leaveRound();
    }
  }

  /** A reader's round, under the poller lock: completions only. */
  private void helpRound() {
    if (stopped) {
      return; // the completion queue may be destroyed already
    }
    doorbells.beginRound();
    try {
      delivery.poll();
    } finally {
      doorbells.endRound();
    }
  }

  /**
   * The agent thread's own poll (its round, the look before a park): completions it finds were
   * polled for by no reader, so its parks beside readers are short again.
   */
  private int pollOwn() {
    int found = delivery.poll();
    if (found > 0) {
      unarmedParkMillis = UNARMED_PARK_MILLIS;
    }
    return found;
  }

  /**
   * Ends a channel: nothing more is posted on it, READs never posted fail at once, and the READs in
   * flight end once their queue pair can no longer write into their targets: at once when it is
   * destroyed; as their flush completions come when it could only be moved to the error state;
   * never, when neither worked: then their targets are leaked on purpose (counted) and the READs
   * fail at once. Idempotent. Agent thread (takes the poller lock).
   */
  public void breakChannel(VerbsReadChannel ch, TransportException cause) {
    poller.lock();
    try {
      ending.end(ch, cause);
    } finally {
      poller.unlock();
    }
  }

  /**
   * Breaks every channel (the transport closes) and runs what was submitted; from then on readers
   * poll no more (the completion queue goes). Agent thread.
   */
  public void shutdown(String why) {
    poller.lock();
    try {
      shutdownLocked(why);
    } finally {
      stopped = true;
      poller.unlock();
    }
  }

  private void shutdownLocked(String why) {
    commands.runAll();
    ending.endEvery(why);
    // queue pairs in the error state: wait a little for their flushes, then leak what is left
    long deadline = System.nanoTime() + Math.min(timeoutNanos, TimeUnit.SECONDS.toNanos(2));
    while (channels.anyDraining() && System.nanoTime() - deadline < 0) {
      if (delivery.poll() == 0) {
        Thread.onSpinWait();
      }
    }
    ending.leakUnflushed(System.nanoTime());
    commands.runAll();
  }
}
