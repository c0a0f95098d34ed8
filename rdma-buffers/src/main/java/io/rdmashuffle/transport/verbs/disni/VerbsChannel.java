package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostSend;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.BoundedReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

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
final class VerbsChannel extends BoundedReadChannel {
  /** READs per doorbell: one reused work-request list per size up to this. */
  static final int MAX_BATCH = 16;

  final RdmaCmId cmId;
  final IbvQP qp;
  final int depth;
  private final VerbsEngine engine;

  // guarded by state
  /** Admitted within the bounds, not yet posted: taken by the engine. */
  private final ArrayDeque<ReadOp> admitted = new ArrayDeque<>();
  private boolean scheduled;

  // ---- engine thread only
  /** Engine slots of the posted READs, in posting order. */
  final int[] ring;
  int ringHead;
  int ringCount;
  boolean broken;
  /** Set on the RDMA-CM thread once the queue pair is destroyed (see VerbsTransport#destroyQp). */
  volatile boolean qpDestroyed;
  private final SVCPostSend[] batches = new SVCPostSend[MAX_BATCH + 1];

  VerbsChannel(
      PeerAddress peer, String application, RdmaCmId cmId, IbvQP qp, int depth, long maxBytes,
      VerbsEngine engine) {
    super(peer, application, depth, maxBytes);
    this.cmId = cmId;
    this.qp = qp;
    this.depth = depth;
    this.engine = engine;
    this.ring = new int[depth];
  }

  @Override
  protected void issue(ReadOp op) {
    admitted.addLast(op);
  }

  @Override
  protected void afterIssue() {
    boolean schedule;
    state.lock();
    try {
      schedule = markScheduled();
    } finally {
      state.unlock();
    }
    if (schedule) {
      engine.schedule(this);
    }
  }

  @Override
  protected void fail(ReadOp op, TransportException e) {
    engine.fail(op, e);
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
    TransportException cause = new ConnectionLostException("connection closed locally", peer, null, null);
    state.lock();
    try {
      if (!closeLocked(cause)) {
        return;
      }
    } finally {
      state.unlock();
    }
    engine.submit(() -> engine.breakChannel(this, cause));
  }

  /** Why the channel closes (null while open). */
  TransportException whyClosing() {
    return closingCause();
  }

  // ------------------------------------------------------------ engine side

  /**
   * Takes up to {@code max} admitted READs into {@code into}; clears the scheduled mark when none
   * is left. Engine thread.
   */
  int takeAdmitted(ReadOp[] into, int max) {
    state.lock();
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
      state.unlock();
    }
  }

  /**
   * {@code count} READs of {@code bytes} completed (or failed): frees their room and admits
   * waiting READs. Returns whether the engine must post again. Engine thread.
   */
  boolean released(int count, long bytes) {
    state.lock();
    try {
      releaseLocked(count, bytes);
      return markScheduled();
    } finally {
      state.unlock();
    }
  }

  /**
   * Ends the channel: records the cause, and hands back every READ not posted (admitted or
   * waiting) for the engine to fail. Engine thread.
   */
  List<ReadOp> end(TransportException cause) {
    state.lock();
    try {
      closeLocked(cause);
      List<ReadOp> out = new ArrayList<>(admitted);
      admitted.clear();
      scheduled = false;
      out.addAll(endLocked());
      return out;
    } finally {
      state.unlock();
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
