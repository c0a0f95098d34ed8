/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;
import com.ibm.disni.verbs.impl.NatIbvCQ;
import com.ibm.disni.verbs.impl.NatIbvCompChannel;
import io.rdmashuffle.transport.verbs.engine.CompletionQueue;
import io.rdmashuffle.transport.verbs.engine.Completions;
import java.io.IOException;

/**
 * The transport's completion queue, its completion channel and an eventfd wake-up, through DiSNI
 * and our native extras. Completions are copied out of DiSNI's reused {@link IbvWC} objects at
 * once. Owned by the transport, used by the engine's agent thread (and {@link #wake} by any
 * thread).
 */
final class DisniCompletionQueue implements CompletionQueue {
  private final IbvCQ cq;
  private final IbvCompChannel channel;
  private final long cqId;
  private final long channelId;
  private final IbvWC[] wcs;
  private final SVCPollCq pollCall;
  private final SVCReqNotify armCall;
  private final int wakeupFd;

  DisniCompletionQueue(IbvCQ cq, IbvCompChannel channel, int batch) throws IOException {
    this.cq = cq;
    this.channel = channel;
    this.cqId = ((NatIbvCQ) cq).getObjId();
    this.channelId = ((NatIbvCompChannel) channel).getObjId();
    this.wcs = new IbvWC[batch];
    for (int i = 0; i < batch; i++) {
      wcs[i] = new IbvWC();
    }
    int fd = NativeExtras.createWakeup();
    if (fd < 0) {
      throw new IOException("eventfd for the completion queue's wake-up failed: errno " + -fd);
    }
    this.wakeupFd = fd;
    SVCPollCq poll = null;
    try {
      poll = cq.poll(wcs, batch);
      this.pollCall = poll;
      this.armCall = cq.reqNotification(false);
    } catch (IOException | RuntimeException e) {
      if (poll != null) {
        poll.free();
      }
      NativeExtras.closeWakeup(fd);
      throw e;
    }
  }

  @Override
  public int poll(Completions into) throws IOException {
    int n = Math.min(into.capacity(), pollCall.execute().getPolls());
    for (int i = 0; i < n; i++) {
      into.set(i, wcs[i].getWr_id(), wcs[i].getStatus());
    }
    return n;
  }

  @Override
  public void arm() throws IOException {
    armCall.execute();
  }

  @Override
  public void await(int timeoutMillis) throws IOException {
    int rc = NativeExtras.awaitCompletion(channelId, cqId, wakeupFd, timeoutMillis);
    if (rc < 0) {
      throw new IOException("waiting on the completion channel failed: errno " + -rc);
    }
  }

  @Override
  public void wake() {
    NativeExtras.wake(wakeupFd);
  }

  IbvCQ cq() {
    return cq;
  }

  /** Frees the reused calls and the wake-up; the queue and channel are destroyed by the owner. */
  void free() {
    pollCall.free();
    armCall.free();
    NativeExtras.closeWakeup(wakeupFd);
  }

  IbvCompChannel channel() {
    return channel;
  }
}
