package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCReqNotify;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single owner of the transport's completion queue and of every reading queue pair's send
 * side (Agrona's agent on a duty cycle): other threads hand it channels with READs to post and
 * commands; it posts READs in batches, polls completions, completes and fails READs, and enforces
 * the read timeout. Nothing here allocates per READ.
 *
 * <p>Every posted READ takes an engine slot; the slot count is the completion queue's size, so
 * the queue can't overflow even when every READ completes with an error (errors complete
 * unsignalled work requests too). A work request id is {@code generation << 32 | slot}: a late
 * completion of a destroyed queue pair never matches a reused slot.
 *
 * <p>Idle strategy: it spins briefly, then yields for a while (a completion or the next READ
 * usually comes within microseconds; waking a parked thread costs more), then, with READs
 * outstanding, waits on the completion channel for at most 1 ms at a time, and with none parks
 * until a poster wakes it.
 */
final class VerbsEngine implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsEngine.class);
  private static final int POLL_BATCH = 32;
  /**
   * Idle loop: spin this many times, then yield this many times before blocking. Yielding rather
   * than spinning matters where the "NIC" is the kernel itself (Soft-RoCE): a spinning thread
   * takes the CPU the kernel needs to move the bytes.
   */
  private static final int SPINS = 100;
  private static final int YIELDS = 2_000;
  private static final long TIMEOUT_CHECK_NANOS = 2_000_000;

  private final IbvCQ cq;
  private final IbvCompChannel events;
  private final TransportMetrics metrics;
  private final long timeoutNanos;
  private final Consumer<VerbsChannel> destroyQp;
  private final Consumer<VerbsChannel> onBroken;

  private final ReentrantLock queueLock = new ReentrantLock();
  private final ArrayDeque<VerbsChannel> ready = new ArrayDeque<>();
  private final ArrayDeque<Runnable> commands = new ArrayDeque<>();
  private final Thread thread;
  private volatile boolean running = true;

  // ---- engine thread only
  private final int capacity;
  private final ReadOp[] slotOp;
  private final VerbsChannel[] slotChannel;
  private final long[] slotPostedAt;
  private final int[] slotGeneration;
  private final int[] freeSlots;
  private int freeCount;
  private final List<VerbsChannel> active = new ArrayList<>();
  private final ReadOp[] batch = new ReadOp[VerbsChannel.MAX_BATCH];
  private final IbvWC[] wcs = new IbvWC[POLL_BATCH];
  private final SVCPollCq pollCall;
  private final SVCReqNotify armCall;
  private long nextTimeoutCheck;

  VerbsEngine(
      IbvCQ cq,
      IbvCompChannel events,
      int capacity,
      TransportMetrics metrics,
      long timeoutNanos,
      Consumer<VerbsChannel> destroyQp,
      Consumer<VerbsChannel> onBroken)
      throws IOException {
    this.cq = cq;
    this.events = events;
    this.capacity = capacity;
    this.metrics = metrics;
    this.timeoutNanos = timeoutNanos;
    this.destroyQp = destroyQp;
    this.onBroken = onBroken;
    this.slotOp = new ReadOp[capacity];
    this.slotChannel = new VerbsChannel[capacity];
    this.slotPostedAt = new long[capacity];
    this.slotGeneration = new int[capacity];
    this.freeSlots = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      freeSlots[i] = capacity - 1 - i;
    }
    this.freeCount = capacity;
    for (int i = 0; i < POLL_BATCH; i++) {
      wcs[i] = new IbvWC();
    }
    this.pollCall = cq.poll(wcs, POLL_BATCH);
    this.armCall = cq.reqNotification(false);
    this.thread = new Thread(this, "rdma-verbs-cq");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** The most READs that can be posted at once, over all queue pairs. */
  int capacity() {
    return capacity;
  }

  // ------------------------------------------------------------ other threads

  /** A channel has admitted READs to post. */
  void schedule(VerbsChannel ch) {
    queueLock.lock();
    try {
      ready.addLast(ch);
    } finally {
      queueLock.unlock();
    }
    wake();
  }

  /** Runs {@code command} on the engine thread. */
  void submit(Runnable command) {
    queueLock.lock();
    try {
      commands.addLast(command);
    } finally {
      queueLock.unlock();
    }
    wake();
  }

  private void wake() {
    if (Thread.currentThread() != thread) {
      LockSupport.unpark(thread);
    }
  }

  /** Stops the engine after breaking every channel still posted; waits for it. */
  /**
   * Stops the engine thread and waits for it. Returns whether it ended: while it runs it may
   * still poll the completion queue, which must then not be destroyed.
   */
  boolean stop() {
    running = false;
    LockSupport.unpark(thread);
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !thread.isAlive();
  }

  // ------------------------------------------------------------ engine thread

  @Override
  public void run() {
    int idle = 0;
    while (running) {
      int work;
      try {
        work = runCommands() + postReady() + poll();
        long now = System.nanoTime();
        if (now - nextTimeoutCheck >= 0) {
          checkTimeouts(now);
          nextTimeoutCheck = now + TIMEOUT_CHECK_NANOS;
        }
      } catch (RuntimeException | Error e) {
        metrics.listenerError();
        LOG.error("verbs engine error (continuing)", e);
        work = 1;
      }
      if (work > 0) {
        idle = 0;
      } else {
        idle = idle(idle + 1);
      }
    }
    shutdown();
  }

  private int idle(int idle) {
    if (idle < SPINS) {
      Thread.onSpinWait();
      return idle;
    }
    if (idle < SPINS + YIELDS) {
      Thread.yield();
      return idle;
    }
    if (freeCount < capacity) {
      waitForCompletion();
      return idle;
    }
    LockSupport.parkNanos(this, 100_000_000L);
    return 0;
  }

  /** Arms the completion channel and waits up to 1 ms for an event. */
  private void waitForCompletion() {
    try {
      armCall.execute();
      if (poll() > 0 || hasQueued()) {
        return;
      }
      if (events.getCqEvent(cq, 1)) {
        cq.ackEvents(1);
      }
    } catch (IOException e) {
      LOG.debug("waiting for a completion event failed", e);
      LockSupport.parkNanos(this, 1_000_000L);
    }
  }

  private boolean hasQueued() {
    queueLock.lock();
    try {
      return !ready.isEmpty() || !commands.isEmpty();
    } finally {
      queueLock.unlock();
    }
  }

  /** The head of one of the queues other threads hand work through, or null. */
  private <T> T pollLocked(ArrayDeque<T> queue) {
    queueLock.lock();
    try {
      return queue.pollFirst();
    } finally {
      queueLock.unlock();
    }
  }

  private int runCommands() {
    int n = 0;
    while (true) {
      Runnable c = pollLocked(commands);
      if (c == null) {
        return n;
      }
      c.run();
      n++;
    }
  }

  private int postReady() {
    int n = 0;
    int rounds;
    queueLock.lock();
    try {
      rounds = ready.size();
    } finally {
      queueLock.unlock();
    }
    for (int r = 0; r < rounds; r++) {
      VerbsChannel ch = pollLocked(ready);
      if (ch == null) {
        break;
      }
      n += postFrom(ch);
    }
    return n;
  }

  /** Posts the admitted READs of one channel, in batches; requeues it when slots ran out. */
  private int postFrom(VerbsChannel ch) {
    int posted = 0;
    while (true) {
      int room = Math.min(VerbsChannel.MAX_BATCH, freeCount);
      if (room == 0) {
        // every slot is in flight: try again after completions
        requeue(ch);
        return posted;
      }
      int k = ch.takeAdmitted(batch, room);
      if (k == 0) {
        return posted;
      }
      if (ch.broken) {
        for (int i = 0; i < k; i++) {
          batch[i].target().release();
          fail(ch, batch[i], ch.whyClosing(), null);
        }
        continue;
      }
      postBatch(ch, k);
      posted += k;
    }
  }

  private void requeue(VerbsChannel ch) {
    queueLock.lock();
    try {
      ready.addLast(ch);
    } finally {
      queueLock.unlock();
    }
  }

  /** One doorbell for {@code k} READs; only the last one is signalled. */
  private void postBatch(VerbsChannel ch, int k) {
    long now = System.nanoTime();
    int first = ch.ringCount;
    try {
      SVCPostSend s = ch.batch(k);
      for (int i = 0; i < k; i++) {
        ReadOp op = batch[i];
        int slot = freeSlots[--freeCount];
        int gen = ++slotGeneration[slot];
        slotOp[slot] = op;
        slotChannel[slot] = ch;
        slotPostedAt[slot] = now;
        ch.ring[(ch.ringHead + ch.ringCount) % ch.depth] = slot;
        ch.ringCount++;
        SVCPostSend.SendWRMod wr = s.getWrMod(i);
        wr.setWr_id(((long) gen << 32) | slot);
        wr.setSend_flags(i == k - 1 ? IbvSendWR.IBV_SEND_SIGNALED : 0);
        wr.getRdmaMod().setRemote_addr(op.remoteAddress());
        wr.getRdmaMod().setRkey(op.rkey());
        SVCPostSend.SgeMod sge = wr.getSgeMod(0);
        sge.setAddr(op.target().address() + op.targetOffset());
        sge.setLength(op.length());
        sge.setLkey(op.target().lkey());
      }
      if (first == 0) {
        active.add(ch);
      }
      s.execute();
    } catch (IOException e) {
      breakChannel(ch,
          new ConnectionLostException("posting READs failed: " + e.getMessage(), ch.peer(), null, e));
    }
  }

  private int poll() {
    int n;
    try {
      n = pollCall.execute().getPolls();
    } catch (IOException e) {
      LOG.warn("polling the completion queue failed", e);
      return 0;
    }
    for (int i = 0; i < n; i++) {
      IbvWC wc = wcs[i];
      long id = wc.getWr_id();
      int slot = (int) id;
      int gen = (int) (id >>> 32);
      if (slot < 0 || slot >= capacity || slotGeneration[slot] != gen || slotOp[slot] == null) {
        continue; // a late completion of a queue pair already torn down
      }
      VerbsChannel ch = slotChannel[slot];
      int status = wc.getStatus();
      if (status == IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal()) {
        completeThrough(ch, slot, null);
      } else if (!ch.broken) {
        TransportException cause = failureOf(status, ch, slotOp[slot]);
        completeThrough(ch, slot, cause);
        breakChannel(ch,
            new ConnectionLostException("queue pair failed: " + statusName(status), ch.peer(),
                null, cause));
      }
    }
    return n;
  }

  /**
   * The READ in {@code slot} ended (RC completes in order, so every READ posted before it on its
   * queue pair completed successfully): completes those, then that one with {@code failure}.
   */
  private void completeThrough(VerbsChannel ch, int slot, TransportException failure) {
    int count = 0;
    long bytes = 0;
    long now = System.nanoTime();
    while (ch.ringCount > 0) {
      int s = ch.ring[ch.ringHead];
      ch.ringHead = (ch.ringHead + 1) % ch.depth;
      ch.ringCount--;
      ReadOp op = slotOp[s];
      long latency = now - slotPostedAt[s];
      freeSlot(s);
      count++;
      bytes += op.length();
      op.target().release();
      if (s == slot && failure != null) {
        metrics.failure(failure.kind());
        deliver(op, failure);
      } else {
        metrics.readCompleted(op.length(), latency);
        deliver(op, null);
      }
      if (s == slot) {
        break;
      }
    }
    if (ch.ringCount == 0) {
      active.remove(ch);
    }
    if (ch.released(count, bytes)) {
      requeue(ch);
    }
  }

  private void freeSlot(int s) {
    slotOp[s] = null;
    slotChannel[s] = null;
    freeSlots[freeCount++] = s;
  }

  private TransportException failureOf(int status, VerbsChannel ch, ReadOp op) {
    if (status == IbvWC.IbvWcStatus.IBV_WC_REM_ACCESS_ERR.ordinal()
        || status == IbvWC.IbvWcStatus.IBV_WC_REM_INV_REQ_ERR.ordinal()) {
      return new RemoteAccessException(RemoteAccessException.Reason.UNSPECIFIED, ch.peer(), op);
    }
    return new ConnectionLostException(
        "READ completed with " + statusName(status), ch.peer(), op, null);
  }

  private static String statusName(int status) {
    IbvWC.IbvWcStatus[] all = IbvWC.IbvWcStatus.values();
    return status >= 0 && status < all.length ? all[status].name() : "status " + status;
  }

  private void checkTimeouts(long now) {
    for (int i = active.size() - 1; i >= 0; i--) {
      VerbsChannel ch = active.get(i);
      if (ch.ringCount > 0 && now - slotPostedAt[ch.ring[ch.ringHead]] > timeoutNanos) {
        breakChannel(ch,
            new ReadTimeoutException("READ(s) exceeded the read timeout; queue pair closed",
                ch.peer(), null, null));
      }
    }
  }

  /**
   * Ends a channel: destroys its queue pair first (after that the NIC writes nothing more into
   * any READ target), then fails every READ of it, posted or queued: those past the read timeout
   * as timeouts, the rest as connection lost. Idempotent. Engine thread.
   */
  void breakChannel(VerbsChannel ch, TransportException cause) {
    if (ch.broken) {
      return;
    }
    ch.broken = true;
    destroyQp.accept(ch);
    ch.freeBatches();
    long now = System.nanoTime();
    List<ReadOp> queued = ch.end(cause);
    while (ch.ringCount > 0) {
      int s = ch.ring[ch.ringHead];
      ch.ringHead = (ch.ringHead + 1) % ch.depth;
      ch.ringCount--;
      ReadOp op = slotOp[s];
      boolean late = now - slotPostedAt[s] > timeoutNanos;
      freeSlot(s);
      op.target().release();
      fail(ch, op, cause, late ? new ReadTimeoutException("READ timed out", ch.peer(), op, null) : null);
    }
    active.remove(ch);
    for (ReadOp op : queued) {
      op.target().release();
      fail(ch, op, cause, null);
    }
    onBroken.accept(ch);
  }

  private void fail(VerbsChannel ch, ReadOp op, TransportException cause, TransportException own) {
    TransportException e =
        own != null ? own : new ConnectionLostException("connection ended with the READ in flight",
            ch.peer(), op, cause);
    fail(op, e);
  }

  /** Fails a READ through its listener (any thread). */
  void fail(ReadOp op, TransportException e) {
    metrics.failure(e.kind());
    deliver(op, e);
  }

  private void deliver(ReadOp op, TransportException failure) {
    ReadListener l = op.listener();
    try {
      if (failure == null) {
        l.onReadComplete(op);
      } else {
        l.onReadFailed(op, failure);
      }
    } catch (RuntimeException | Error e) {
      metrics.listenerError();
      LOG.error("a READ listener threw; the READ's owner will not learn its outcome", e);
    }
  }

  /** On stop: breaks every channel that still has READs, runs what was submitted. */
  private void shutdown() {
    runCommands();
    for (VerbsChannel ch : new ArrayList<>(active)) {
      breakChannel(ch,
          new ConnectionLostException("transport closed", ch.peer(), null, null));
    }
    while (true) {
      VerbsChannel ch = pollLocked(ready);
      if (ch == null) {
        break;
      }
      breakChannel(ch,
          new ConnectionLostException("transport closed", ch.peer(), null, null));
    }
    pollCall.free();
    armCall.free();
  }
}
