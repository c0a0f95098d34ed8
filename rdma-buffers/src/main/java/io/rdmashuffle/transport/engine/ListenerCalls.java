/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells a READ's listener how it ended, for every transport. */
public final class ListenerCalls {
  private static final Logger LOG = LoggerFactory.getLogger(ListenerCalls.class);

  private ListenerCalls() {}

  /**
   * Calls {@code op}'s listener: completed when {@code failure} is null, else failed. A listener
   * that throws is logged and counted as a listener error, never propagated into the engine.
   */
  public static void deliver(ReadOp op, TransportException failure, TransportMetrics metrics) {
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
}
