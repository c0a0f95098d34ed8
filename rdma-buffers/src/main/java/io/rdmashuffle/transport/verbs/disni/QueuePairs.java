/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import java.io.IOException;

/**
 * How every queue pair of the transport is made: the one place its attributes are written. RC, one
 * scatter/gather entry, both sides on one completion queue: a reading queue pair on the reading
 * engine's, a served one on the served queue pairs' own ({@link ServedLiveness}); a reading queue
 * pair gets a send queue as deep as the device allows up to what was asked, a served one the least
 * there is (its only work request is its liveness probe, one at a time).
 */
final class QueuePairs {
  /** Send queue depth below which a reading queue pair is not worth making. */
  static final int MIN_DEPTH = 16;

  /**
   * RC transport retries (after each ACK timeout): 6, one less than the most. The reader's connect
   * request carries it, and both queue pairs of the connection use it; the serving side's liveness
   * probe relies on its bound ({@link ServedLiveness}). The InfiniBand spec makes 7 a plain count,
   * but Soft-RoCE retries forever at 7.
   */
  private static final byte RETRIES = 6;

  /** RNR retries: 7, "forever" (READs and probes never meet a receiver not ready). */
  private static final byte RNR_RETRIES = 7;

  private QueuePairs() {}

  /** A queue pair and the send queue depth the device accepted for it. */
  record Made(IbvQP qp, int depth) {}

  /**
   * Creates a reading queue pair for {@code id} in {@code pd}, halving the depth while the device
   * refuses it. Call on the RDMA-CM thread.
   */
  static Made reading(RdmaCmId id, IbvPd pd, IbvCQ cq, int depth) throws IOException {
    int d = Math.max(MIN_DEPTH, depth);
    while (true) {
      try {
        return new Made(id.createQP(pd, attributes(cq, d)), d);
      } catch (IOException e) {
        if (d <= MIN_DEPTH) {
          throw e;
        }
        d /= 2; // more than the device allows: ask for less
      }
    }
  }

  /** Creates a served queue pair for {@code id} in the application's {@code pd}. */
  static IbvQP served(RdmaCmId id, IbvPd pd, IbvCQ cq) throws IOException {
    return id.createQP(pd, attributes(cq, 1));
  }

  private static IbvQPInitAttr attributes(IbvCQ cq, int sendDepth) {
    IbvQPInitAttr attr = new IbvQPInitAttr();
    attr.cap().setMax_send_wr(sendDepth);
    attr.cap().setMax_recv_wr(1);
    attr.cap().setMax_send_sge(1);
    attr.cap().setMax_recv_sge(1);
    attr.setQp_type(IbvQP.IBV_QPT_RC);
    attr.setSend_cq(cq);
    attr.setRecv_cq(cq);
    return attr;
  }

  /** Connection parameters of both sides (connect and accept). */
  static RdmaConnParam connParam() throws IOException {
    RdmaConnParam param = new RdmaConnParam();
    param.setRetry_count(RETRIES);
    param.setRnr_retry_count(RNR_RETRIES);
    return param;
  }
}
