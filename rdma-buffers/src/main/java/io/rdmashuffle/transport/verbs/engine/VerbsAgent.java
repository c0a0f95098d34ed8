package io.rdmashuffle.transport.verbs.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.engine.ConnectionTable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The completion side of the verbs engine, one per completion queue (Agrona's agent): each call of
 * {@link #doWork} runs the commands other threads handed in, polls completions and ends the READs
 * they name (completing them, or failing them and breaking their channel), and enforces the read
 * timeout. Posting is not here: a channel's posters ring its doorbell themselves.
 *
 * <p>One thread at a time calls {@link #doWork}, {@link #park} and {@link #breakChannel} (the
 * {@link VerbsAgentRunner}'s, or a test's); {@link #submit}, {@link #breakLater}, {@link #fail} and
 * {@link #register} are for any thread. Nothing on the READ path allocates.
 *
 * <p>A work request id is {@code key << 32 | sequence}: the channel's key in a {@link
 * ConnectionTable} (its index and a generation) and the low bits of the READ's sequence number in
 * the channel's work request ring, so a late completion of an ended channel, or of a READ already
 * ended, matches nothing.
 *
 * <p>The channels and the completion queue room they reserve are a {@link ChannelRoom}'s.
 */
public final class VerbsAgent {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsAgent.class);
  public static final int POLL_BATCH = 32;

  private final CompletionQueue cq;
  private final TransportMetrics metrics;
  private final long timeoutNanos;
  private final long checkIntervalNanos;
  private final Consumer<VerbsReadChannel> onEnded;
  private final ChannelRoom channels;
  private final AgentCommands commands;

  // ---- agent thread only
  private final Completions completions = new Completions(POLL_BATCH);
  private final ReadOutcomes outcomes;
  private final EndedReads ended;
  private final Doorbells doorbells = new Doorbells();
  private long nextCheck;

  /**
   * @param cqEntries entries of the completion queue: the READs of all channels together
   * @param maxDepth the deepest send queue a channel may have
   * @param onEnded told (agent thread) when a channel ended and its READs were delivered
   */
  public VerbsAgent(
      CompletionQueue cq,
      int cqEntries,
      int maxDepth,
      TransportMetrics metrics,
      long timeoutNanos,
      Consumer<VerbsReadChannel> onEnded) {
    this.cq = cq;
    this.metrics = metrics;
    this.timeoutNanos = timeoutNanos;
    this.checkIntervalNanos =
        Math.max(
            TimeUnit.MILLISECONDS.toNanos(1),
            Math.min(TimeUnit.MILLISECONDS.toNanos(100), timeoutNanos / 10));
    this.onEnded = onEnded;
    this.channels = new ChannelRoom(cqEntries, maxDepth);
    this.ended = new EndedReads(maxDepth);
    this.outcomes = new ReadOutcomes(metrics);
    this.commands = new AgentCommands(cq);
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
   * Whether the caller is the agent's thread in a round (a listener posting more READs): its posts
   * are rung after the round's completions, many per doorbell.
   */
  boolean onAgentThread() {
    return doorbells.isAgentThread();
  }

  /** Agent thread: rings {@code ch}'s doorbell once this round's completions are delivered. */
  void postLater(VerbsReadChannel ch) {
    doorbells.later(ch);
  }

  /** One round of the duty cycle; returns how much it did (0: nothing). */
  public int doWork() {
    doorbells.beginRound();
    try {
      int work = commands.runAll() + poll();
      long now = System.nanoTime();
      if (now - nextCheck >= 0) {
        checkTimeouts(now);
        nextCheck = now + checkIntervalNanos;
      }
      return work;
    } finally {
      doorbells.endRound();
    }
  }

  /**
   * Idles until a completion, a command or {@code timeoutMillis}: arms the completion queue, looks
   * once more (a completion or a command may have come before the arming), then blocks.
   */
  public void park(int timeoutMillis) {
    doorbells.beginRound();
    try {
      cq.arm();
      if (!commands.isEmpty() || poll() > 0) {
        return;
      }
      cq.await(timeoutMillis);
    } catch (IOException e) {
      metrics.engineError();
      LOG.warn("waiting for completions failed; retrying", e);
    } finally {
      doorbells.endRound();
    }
  }

  private int poll() {
    int n;
    try {
      n = cq.poll(completions);
    } catch (IOException e) {
      metrics.engineError();
      LOG.warn("polling the completion queue failed", e);
      return 0;
    }
    long now = System.nanoTime();
    for (int i = 0; i < n; i++) {
      onCompletion(completions.wrId(i), completions.status(i), now);
    }
    doorbells.ringPending();
    return n;
  }

  private void onCompletion(long wrId, int status, long now) {
    VerbsReadChannel ch = channels.get((int) (wrId >>> 32));
    if (ch == null || !ch.takeCompleted((int) wrId, ended, now)) {
      return; // a late completion: its channel or READ has ended already
    }
    int last = ended.count() - 1;
    postLater(ch); // the room these READs leave may admit waiting ones
    if (ch.draining) {
      // flushed (or finished before the error state): the queue pair writes nothing more there
      failEnded(ch, ch.brokenBy, now, true);
      if (ch.postedCount() == 0) {
        finishDrained(ch);
      }
      return;
    }
    TransportException failure =
        status == Completions.SUCCESS ? null : ReadOutcomes.failureOf(status, ch, ended.op(last));
    for (int i = 0; i <= last; i++) {
      ReadOp op = ended.op(i);
      op.target().release();
      if (i == last && failure != null) {
        fail(op, failure);
      } else {
        outcomes.complete(op, now - ended.postedAt(i));
      }
    }
    ended.clear();
    if (failure != null) {
      breakChannel(
          ch,
          new ConnectionLostException(
              "queue pair failed: " + Completions.statusName(status), ch.peer(), null, failure));
    }
  }

  private void checkTimeouts(long now) {
    for (int i = 0; i < channels.capacity(); i++) {
      VerbsReadChannel ch = channels.at(i);
      if (ch == null) {
        continue;
      }
      if (ch.draining) {
        if (now - ch.drainDeadline > 0) {
          LOG.warn(
              "{}: the queue pair in the error state did not flush its READs within the read"
                  + " timeout; their buffers are leaked rather than reused",
              ch);
          endAll(ch, ch.brokenBy, now, false);
          finish(ch, false);
        }
        continue;
      }
      long oldest = ch.oldestPostedAt();
      if (oldest != -1 && now - oldest > timeoutNanos) {
        breakChannel(
            ch,
            new ReadTimeoutException(
                "READ(s) exceeded the read timeout; queue pair closed", ch.peer(), null, null));
      }
    }
  }

  /**
   * Ends a channel: nothing more is posted on it, READs never posted fail at once, and the READs in
   * flight end once their queue pair can no longer write into their targets: at once when it is
   * destroyed; as their flush completions come when it could only be moved to the error state;
   * never, when neither worked: then their targets are leaked on purpose (counted) and the READs
   * fail at once. Idempotent. Agent thread.
   */
  public void breakChannel(VerbsReadChannel ch, TransportException cause) {
    List<ReadOp> never = ch.markBroken(cause);
    if (never == null) {
      return;
    }
    ch.brokenBy = cause;
    for (ReadOp op : never) {
      op.target().release(); // never posted: nothing writes there
      fail(op, ReadOutcomes.lost(ch, op, cause));
    }
    long now = System.nanoTime();
    QueuePair qp = ch.queuePair();
    if (qp.destroy()) {
      endAll(ch, cause, now, true);
      finish(ch, true);
    } else if (ch.postedCount() > 0 && qp.moveToError()) {
      ch.draining = true;
      ch.drainDeadline = now + timeoutNanos;
    } else {
      endAll(ch, cause, now, false);
      finish(ch, false);
    }
  }

  /** Fails every READ still in flight; releases their targets only when {@code safe}. */
  private void endAll(VerbsReadChannel ch, TransportException cause, long now, boolean safe) {
    ch.takeAll(ended);
    failEnded(ch, cause, now, safe);
  }

  /** Fails the READs taken into {@link #ended}; releases their targets only when {@code safe}. */
  private void failEnded(VerbsReadChannel ch, TransportException cause, long now, boolean safe) {
    for (int i = 0; i < ended.count(); i++) {
      ReadOp op = ended.op(i);
      if (safe) {
        op.target().release();
      } else {
        metrics.readTargetLeaked();
      }
      boolean late = now - ended.postedAt(i) > timeoutNanos;
      fail(
          op,
          late
              ? new ReadTimeoutException("READ timed out", ch.peer(), op, null)
              : ReadOutcomes.lost(ch, op, cause));
    }
    if (!safe && ended.count() > 0) {
      LOG.error(
          "{}: its queue pair could not be destroyed nor flushed; the buffers of {} READ(s)"
              + " in flight are leaked rather than reused",
          ch,
          ended.count());
    }
    ended.clear();
  }

  private void finishDrained(VerbsReadChannel ch) {
    // every READ was flushed: the queue pair only needs to go
    boolean gone = ch.queuePair().destroy();
    if (!gone) {
      LOG.warn("{}: its flushed queue pair could not be destroyed (left to the process)", ch);
    }
    finish(ch, gone);
  }

  /** The channel has no READ left: forget it; its completion queue room is free once it is gone. */
  private void finish(VerbsReadChannel ch, boolean queuePairGone) {
    ch.draining = false;
    channels.remove(ch, queuePairGone);
    if (!queuePairGone) {
      metrics.queuePairLeaked();
    }
    onEnded.accept(ch);
  }

  /** Breaks every channel (the transport closes) and runs what was submitted. Agent thread. */
  public void shutdown(String why) {
    commands.runAll();
    for (int i = 0; i < channels.capacity(); i++) {
      VerbsReadChannel ch = channels.at(i);
      if (ch != null && !ch.draining) {
        breakChannel(ch, new ConnectionLostException(why, ch.peer(), null, null));
      }
    }
    // queue pairs in the error state: wait a little for their flushes, then leak what is left
    long deadline = System.nanoTime() + Math.min(timeoutNanos, TimeUnit.SECONDS.toNanos(2));
    while (channels.anyDraining() && System.nanoTime() - deadline < 0) {
      if (poll() == 0) {
        Thread.onSpinWait();
      }
    }
    long now = System.nanoTime();
    for (int i = 0; i < channels.capacity(); i++) {
      VerbsReadChannel ch = channels.at(i);
      if (ch != null && ch.draining) {
        endAll(ch, ch.brokenBy, now, false);
        finish(ch, false);
      }
    }
    commands.runAll();
  }
}
