/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.verbs.ProbeSchedule;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds served queue pairs whose reader is gone without a word (its host powered off, its cable
 * pulled, a partition): such a queue pair posts nothing, so nothing ever fails on it and RDMA-CM
 * reports nothing. Each served queue pair sends one signalled zero-length RDMA WRITE per probe
 * interval ({@link ProbeSchedule}): no scatter/gather entry, remote address and key 0. A
 * zero-length RDMA WRITE checks no R_Key (InfiniBand C9-88) and writes no byte; it needs only the
 * reader's queue pair to allow remote writes, which RDMA-CM's connection manager grants every RC
 * queue pair it connects (the reader's memory regions grant no remote write). A live reader's
 * device acknowledges it; a vanished one doesn't, and after the transport's retries (RDMA-CM's ACK
 * timeout, {@link QueuePairs}' retry count) the probe completes in error and leaves the queue pair
 * in the error state: it is then reported lost, for the responder to drop like a disconnected one.
 * A probe still unanswered {@code max(probe interval, connect timeout)} after it was sent is
 * reported lost too: Soft-RoCE retries forever when the reader asked for 7 retries (as readers
 * before the retry count became 6 did), and a device might never answer.
 *
 * <p>Served queue pairs complete on their own small completion queue, made here, never on the
 * reading engine's: a probe takes no room the engine reserved and never reaches its completion
 * handling. Each served queue pair has a send queue of one and at most one probe in flight, and the
 * schedule keeps the probes in flight within this queue's entries, so it can't overflow (a dropped
 * queue pair's late completion is one of those counted before its drop, drained at the next poll).
 * It is polled, not armed, by the RDMA-CM thread on every round of its loop ({@link #tick}); that
 * thread owns everything here.
 */
final class ServedLiveness {
  private static final Logger LOG = LoggerFactory.getLogger(ServedLiveness.class);
  private static final int POLL_BATCH = 16;
  private static final int MIN_ENTRIES = 16;

  /** A watched queue pair and its reused probe (made at its first probe). */
  private static final class Watched {
    final RdmaCmId id;
    final IbvQP qp;
    SVCPostSend probe;

    Watched(RdmaCmId id, IbvQP qp) {
      this.id = id;
      this.qp = qp;
    }
  }

  /** Told of a served queue pair whose reader did not answer. */
  interface Lost {
    void lost(RdmaCmId id, String why);
  }

  private final IbvCompChannel channel;
  private final IbvCQ cq;
  private final SVCPollCq poll;
  private final IbvWC[] wcs = new IbvWC[POLL_BATCH];
  private final ProbeSchedule schedule;
  private final TransportMetrics metrics;
  private final LongSupplier clock;
  private final long answerNanos;
  private final Map<Long, Watched> byKey = new HashMap<>();
  private final Map<RdmaCmId, Long> keys = new HashMap<>();
  private long nextKey = 1;
  private boolean closed;

  private ServedLiveness(
      IbvCompChannel channel,
      IbvCQ cq,
      int entries,
      long intervalNanos,
      long firstNanos,
      TransportMetrics metrics,
      LongSupplier clock)
      throws IOException {
    this.channel = channel;
    this.cq = cq;
    for (int i = 0; i < wcs.length; i++) {
      wcs[i] = new IbvWC();
    }
    this.poll = cq.poll(wcs, wcs.length);
    this.answerNanos = firstNanos;
    this.schedule = new ProbeSchedule(intervalNanos, firstNanos, firstNanos, entries);
    this.metrics = metrics;
    this.clock = clock;
  }

  /**
   * Makes the served queue pairs' completion queue, of {@code maxServed} entries (fewer when the
   * device refuses as many: then fewer probes go out at once). A queue pair's first probe goes out
   * {@code max(intervalNanos, connectTimeoutNanos)} after it was accepted: its reader has the
   * connect timeout to establish the connection, and a queue pair still not ready to send by then
   * belongs to a reader that gave up (the probe can't be posted: it is reported lost).
   */
  static ServedLiveness open(
      IbvContext context,
      int maxServed,
      long intervalNanos,
      long connectTimeoutNanos,
      TransportMetrics metrics)
      throws IOException {
    IbvCompChannel channel = context.createCompChannel();
    IbvCQ cq = null;
    try {
      int entries = Math.max(1, maxServed);
      while (cq == null) {
        try {
          cq = context.createCQ(channel, entries, 0);
        } catch (IOException e) {
          if (entries <= MIN_ENTRIES) {
            throw e;
          }
          entries = Math.max(MIN_ENTRIES, entries / 2);
        }
      }
      return new ServedLiveness(
          channel,
          cq,
          entries,
          intervalNanos,
          Math.max(intervalNanos, connectTimeoutNanos),
          metrics,
          System::nanoTime);
    } catch (IOException | RuntimeException e) {
      destroyQuietly(cq, channel);
      throw e;
    }
  }

  /** The completion queue served queue pairs are made on. */
  IbvCQ cq() {
    return cq;
  }

  /** Starts probing a served queue pair just accepted. */
  void watch(RdmaCmId id, IbvQP qp) {
    long key = nextKey++;
    byKey.put(key, new Watched(id, qp));
    keys.put(id, key);
    schedule.add(key, clock.getAsLong());
  }

  /** Stops probing {@code id} (being dropped); call before its queue pair is destroyed. */
  void unwatch(RdmaCmId id) {
    Long key = keys.remove(id);
    if (key == null) {
      return;
    }
    schedule.remove(key);
    Watched w = byKey.remove(key);
    if (w.probe != null) {
      w.probe.free();
    }
  }

  /**
   * Takes the completions of probes (an answer schedules the next probe; an error reports the queue
   * pair to {@code lost}, after this queue's own bookkeeping) and sends the probes now due. RDMA-CM
   * thread, every round of its loop.
   */
  void tick(Lost lost) {
    if (closed) {
      return;
    }
    List<Map.Entry<RdmaCmId, String>> gone = new ArrayList<>();
    if (schedule.inFlight() > 0) {
      takeCompletions(gone);
      schedule.overdue(
          clock.getAsLong(),
          key ->
              gone.add(
                  Map.entry(
                      byKey.get(key).id,
                      "its liveness probe was not answered within "
                          + TimeUnit.NANOSECONDS.toSeconds(answerNanos)
                          + " s")));
      report(gone, lost); // dropped before new probes go out: their room is then truly free
    }
    schedule.due(clock.getAsLong(), key -> send(key, gone));
    report(gone, lost);
  }

  private static void report(List<Map.Entry<RdmaCmId, String>> gone, Lost lost) {
    for (Map.Entry<RdmaCmId, String> g : gone) {
      lost.lost(g.getKey(), g.getValue());
    }
    gone.clear();
  }

  private void takeCompletions(List<Map.Entry<RdmaCmId, String>> gone) {
    while (true) {
      int n;
      try {
        n = poll.execute().getPolls();
      } catch (IOException e) {
        LOG.warn("polling the served queue pairs' completion queue failed", e);
        return;
      }
      for (int i = 0; i < n; i++) {
        long key = wcs[i].getWr_id();
        int status = wcs[i].getStatus();
        Watched w = byKey.get(key);
        if (w == null) {
          continue; // its queue pair was dropped since
        }
        if (status == IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal()) {
          schedule.answered(key, clock.getAsLong());
          metrics.servedProbeAnswered();
        } else {
          schedule.remove(key);
          gone.add(Map.entry(w.id, "its liveness probe completed with " + statusName(status)));
        }
      }
      if (n < wcs.length) {
        return;
      }
    }
  }

  private void send(long key, List<Map.Entry<RdmaCmId, String>> gone) {
    Watched w = byKey.get(key);
    try {
      if (w.probe == null) {
        w.probe = w.qp.postSend(List.of(zeroLengthWrite(key)), null);
      }
      w.probe.execute();
    } catch (IOException | RuntimeException e) {
      schedule.remove(key);
      gone.add(Map.entry(w.id, "its liveness probe could not be posted: " + e.getMessage()));
    }
  }

  /** A signalled RDMA WRITE of nothing: no scatter/gather entry, remote address and key 0. */
  private static IbvSendWR zeroLengthWrite(long key) {
    IbvSendWR wr = new IbvSendWR();
    wr.setWr_id(key);
    wr.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
    wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
    wr.setSg_list(new LinkedList<>());
    wr.setNum_sge(0);
    wr.getRdma().setRemote_addr(0);
    wr.getRdma().setRkey(0);
    return wr;
  }

  private static String statusName(int status) {
    IbvWC.IbvWcStatus[] all = IbvWC.IbvWcStatus.values();
    return status >= 0 && status < all.length ? all[status].name() : "status " + status;
  }

  /** Probes in flight (tests, logs). */
  int inFlight() {
    return schedule.inFlight();
  }

  /**
   * Destroys the completion queue; once every served queue pair is dropped (a queue on which queue
   * pairs remain can't be destroyed, and is then left to the process). RDMA-CM thread.
   */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (RdmaCmId id : new ArrayList<>(keys.keySet())) {
      unwatch(id);
    }
    poll.free();
    destroyQuietly(cq, channel);
  }

  private static void destroyQuietly(IbvCQ cq, IbvCompChannel channel) {
    try {
      if (cq != null) {
        cq.destroyCQ();
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("destroying the served queue pairs' completion queue failed", e);
    }
    try {
      channel.destroyCompChannel();
    } catch (IOException | RuntimeException e) {
      LOG.debug("destroying the served queue pairs' completion channel failed", e);
    }
  }
}
