package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostSend;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The reader's side of one RC queue pair. Posting threads only queue READs here; the queue pair
 * itself is touched by the completion queue's owner thread alone ({@link VerbsEngine}), which
 * posts queued READs in batches (one doorbell, only the last one signalled) with reused {@link
 * SVCPostSend} objects, and completes them.
 *
 * <p>Bounds: at most {@code depth} READs (the queue pair's send queue, what the device allowed at
 * creation) and {@code maxBytes} bytes are in flight; beyond them READs wait here ({@link #post})
 * or are refused ({@link #tryPost}).
 */
final class VerbsChannel implements ReadChannel {
  /** READs per doorbell: one reused work-request list per size up to this. */
  static final int MAX_BATCH = 16;

  final PeerAddress peer;
  final String application;
  final RdmaCmId cmId;
  final IbvQP qp;
  final int depth;
  private final long maxBytes;
  private final VerbsEngine engine;

  private final ReentrantLock lock = new ReentrantLock();
  /** Admitted within the bounds, not yet posted: taken by the engine. */
  private final ArrayDeque<ReadOp> admitted = new ArrayDeque<>();
  /** Beyond the bounds. */
  private final ArrayDeque<ReadOp> waiting = new ArrayDeque<>();
  private int inFlight;
  private long inFlightBytes;
  private boolean scheduled;
  private TransportException closing;
  private boolean ended;

  // ---- engine thread only
  /** Engine slots of the posted READs, in posting order. */
  final int[] ring;
  int ringHead;
  int ringCount;
  boolean broken;
  private final SVCPostSend[] batches = new SVCPostSend[MAX_BATCH + 1];

  VerbsChannel(
      PeerAddress peer, String application, RdmaCmId cmId, IbvQP qp, int depth, long maxBytes,
      VerbsEngine engine) {
    this.peer = peer;
    this.application = application;
    this.cmId = cmId;
    this.qp = qp;
    this.depth = depth;
    this.maxBytes = maxBytes;
    this.engine = engine;
    this.ring = new int[depth];
  }

  @Override
  public PeerAddress peer() {
    return peer;
  }

  @Override
  public String application() {
    return application;
  }

  @Override
  public boolean isOpen() {
    lock.lock();
    try {
      return closing == null && !ended;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int inFlight() {
    lock.lock();
    try {
      return inFlight;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean tryPost(ReadOp op) {
    retainTarget(op);
    TransportException endedBy;
    boolean schedule = false;
    lock.lock();
    try {
      endedBy = ended ? closing : null;
      if (endedBy == null) {
        if (!waiting.isEmpty() || !hasRoom(op.length())) {
          op.target().release();
          return false;
        }
        admit(op);
        schedule = markScheduled();
      }
    } finally {
      lock.unlock();
    }
    after(op, endedBy, schedule);
    return true;
  }

  @Override
  public void post(ReadOp op) {
    retainTarget(op);
    TransportException endedBy;
    boolean schedule = false;
    lock.lock();
    try {
      endedBy = ended ? closing : null;
      if (endedBy == null) {
        enqueue(op);
        schedule = markScheduled();
      }
    } finally {
      lock.unlock();
    }
    after(op, endedBy, schedule);
  }

  @Override
  public void postAll(List<ReadOp> ops) {
    int n = ops.size();
    for (int i = 0; i < n; i++) {
      retainTarget(ops.get(i));
    }
    TransportException endedBy;
    boolean schedule = false;
    lock.lock();
    try {
      endedBy = ended ? closing : null;
      if (endedBy == null) {
        for (int i = 0; i < n; i++) {
          enqueue(ops.get(i));
        }
        schedule = markScheduled();
      }
    } finally {
      lock.unlock();
    }
    if (endedBy != null) {
      for (int i = 0; i < n; i++) {
        failEnded(ops.get(i), endedBy);
      }
    } else if (schedule) {
      engine.schedule(this);
    }
  }

  private void after(ReadOp op, TransportException endedBy, boolean schedule) {
    if (endedBy != null) {
      failEnded(op, endedBy);
    } else if (schedule) {
      engine.schedule(this);
    }
  }

  private static void retainTarget(ReadOp op) {
    if (op.target() == null || !op.target().tryRetain()) {
      throw new IllegalStateException("READ target region is not open: " + op);
    }
  }

  private void failEnded(ReadOp op, TransportException cause) {
    op.target().release();
    engine.fail(op, new ConnectionLostException("connection is closed", peer, op, cause));
  }

  private void enqueue(ReadOp op) {
    if (waiting.isEmpty() && hasRoom(op.length())) {
      admit(op);
    } else {
      waiting.addLast(op);
    }
  }

  private boolean hasRoom(int length) {
    return inFlight < depth && (inFlightBytes + length <= maxBytes || inFlight == 0);
  }

  private void admit(ReadOp op) {
    admitted.addLast(op);
    inFlight++;
    inFlightBytes += op.length();
  }

  /** Under the lock: whether the caller must hand this channel to the engine. */
  private boolean markScheduled() {
    if (scheduled || admitted.isEmpty()) {
      return false;
    }
    scheduled = true;
    return true;
  }

  @Override
  public void close() {
    lock.lock();
    try {
      if (closing != null || ended) {
        return;
      }
      closing = new ConnectionLostException("connection closed locally", peer, null, null);
    } finally {
      lock.unlock();
    }
    engine.submit(() -> engine.breakChannel(this, closingCause()));
  }

  TransportException closingCause() {
    lock.lock();
    try {
      return closing;
    } finally {
      lock.unlock();
    }
  }

  // ------------------------------------------------------------ engine side

  /**
   * Takes up to {@code max} admitted READs into {@code into}; clears the scheduled mark when none
   * is left. Engine thread.
   */
  int takeAdmitted(ReadOp[] into, int max) {
    lock.lock();
    try {
      int n = 0;
      while (n < max && !admitted.isEmpty()) {
        into[n++] = admitted.pollFirst();
      }
      if (admitted.isEmpty()) {
        scheduled = false;
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@code count} READs of {@code bytes} completed (or failed): frees their room and admits
   * waiting READs. Returns whether the engine must post again. Engine thread.
   */
  boolean released(int count, long bytes) {
    lock.lock();
    try {
      inFlight -= count;
      inFlightBytes -= bytes;
      while (!waiting.isEmpty() && closing == null && hasRoom(waiting.peekFirst().length())) {
        admit(waiting.pollFirst());
      }
      return markScheduled();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends the channel: records the cause, and hands back every READ not posted (admitted or
   * waiting) for the engine to fail. Engine thread.
   */
  List<ReadOp> end(TransportException cause) {
    lock.lock();
    try {
      ended = true;
      if (closing == null) {
        closing = cause;
      }
      List<ReadOp> out = new java.util.ArrayList<>(admitted.size() + waiting.size());
      out.addAll(admitted);
      out.addAll(waiting);
      admitted.clear();
      waiting.clear();
      inFlight = 0;
      inFlightBytes = 0;
      scheduled = false;
      return out;
    } finally {
      lock.unlock();
    }
  }

  int pendingCount() {
    lock.lock();
    try {
      return admitted.size() + waiting.size();
    } finally {
      lock.unlock();
    }
  }

  /** The reused work-request list for a doorbell of {@code n} READs. Engine thread. */
  SVCPostSend batch(int n) throws IOException {
    SVCPostSend s = batches[n];
    if (s == null) {
      List<IbvSendWR> wrs = new LinkedList<>();
      for (int i = 0; i < n; i++) {
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
        wr.setSend_flags(0);
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(new IbvSge());
        wr.setSg_list(sges);
        wr.setNum_sge(1);
        wrs.add(wr);
      }
      s = qp.postSend(wrs, null);
      batches[n] = s;
    }
    return s;
  }

  /** Frees the reused work-request lists. Engine thread, after the queue pair is gone. */
  void freeBatches() {
    for (int i = 0; i < batches.length; i++) {
      if (batches[i] != null) {
        batches[i].free();
        batches[i] = null;
      }
    }
  }

  @Override
  public String toString() {
    return "verbs channel to " + peer + " for " + application;
  }
}
