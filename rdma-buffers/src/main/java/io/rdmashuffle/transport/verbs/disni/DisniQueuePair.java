/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPostSend;
import io.rdmashuffle.transport.verbs.engine.QueuePair;
import java.io.IOException;
import java.util.LinkedList;
import java.util.List;

/**
 * The send side of one reading RC queue pair through DiSNI: one reused {@link SVCPostSend} per
 * doorbell size (DiSNI serialises a work request list once; its fields are then rewritten in
 * place), filled and posted under the owning channel's lock. Destroying and moving to the error
 * state go through the {@link Lifecycle} of the transport, which runs them where RDMA-CM allows.
 */
final class DisniQueuePair implements QueuePair {
  /** How the transport destroys a reading queue pair or moves it to the error state. */
  interface Lifecycle {
    /** True only when the queue pair is certainly gone. */
    boolean destroy(DisniQueuePair qp);

    /** True when the queue pair is now in the error state. */
    boolean moveToError(DisniQueuePair qp);
  }

  final RdmaCmId cmId;
  final IbvQP qp;
  private final Lifecycle lifecycle;
  private final SVCPostSend[] batches = new SVCPostSend[MAX_BATCH + 1];
  private final long[] wrId = new long[MAX_BATCH];
  private final boolean[] signaled = new boolean[MAX_BATCH];
  private final long[] remoteAddress = new long[MAX_BATCH];
  private final int[] rkey = new int[MAX_BATCH];
  private final long[] localAddress = new long[MAX_BATCH];
  private final int[] length = new int[MAX_BATCH];
  private final int[] lkey = new int[MAX_BATCH];

  /** Set once the queue pair is destroyed (RDMA-CM thread, or the engine during device removal). */
  volatile boolean destroyed;

  /** Set when a destroy was asked for and its outcome is unknown (it may still happen later). */
  volatile boolean destroyUncertain;

  DisniQueuePair(RdmaCmId cmId, IbvQP qp, Lifecycle lifecycle) {
    this.cmId = cmId;
    this.qp = qp;
    this.lifecycle = lifecycle;
  }

  @Override
  public void setRead(
      int index,
      long id,
      boolean signal,
      long remote,
      int remoteKey,
      long local,
      int bytes,
      int localKey) {
    wrId[index] = id;
    signaled[index] = signal;
    remoteAddress[index] = remote;
    rkey[index] = remoteKey;
    localAddress[index] = local;
    length[index] = bytes;
    lkey[index] = localKey;
  }

  @Override
  public void post(int count) throws IOException {
    SVCPostSend s = batch(count);
    for (int i = 0; i < count; i++) {
      SVCPostSend.SendWRMod wr = s.getWrMod(i);
      wr.setWr_id(wrId[i]);
      wr.setSend_flags(signaled[i] ? IbvSendWR.IBV_SEND_SIGNALED : 0);
      wr.getRdmaMod().setRemote_addr(remoteAddress[i]);
      wr.getRdmaMod().setRkey(rkey[i]);
      SVCPostSend.SgeMod sge = wr.getSgeMod(0);
      sge.setAddr(localAddress[i]);
      sge.setLength(length[i]);
      sge.setLkey(lkey[i]);
    }
    s.execute();
  }

  /** The reused work-request list for a doorbell of {@code n} READs. */
  private SVCPostSend batch(int n) throws IOException {
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

  @Override
  public boolean destroy() {
    boolean gone = lifecycle.destroy(this);
    if (gone) {
      freeBatches();
    }
    return gone;
  }

  @Override
  public boolean moveToError() {
    return lifecycle.moveToError(this);
  }

  /** Frees the reused work-request lists; once, after the queue pair is gone. */
  private void freeBatches() {
    for (int i = 0; i < batches.length; i++) {
      if (batches[i] != null) {
        batches[i].free();
        batches[i] = null;
      }
    }
  }
}
