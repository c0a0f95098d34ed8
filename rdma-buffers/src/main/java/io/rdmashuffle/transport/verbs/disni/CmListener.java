/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.rdmashuffle.transport.engine.ErrorHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verbs transport's RDMA-CM endpoint: its event channel, the loop thread that owns it ({@link
 * CmEventLoop}) and the listening id, bound to the connection server's port number where that is
 * free in RDMA-CM's port space (distinct from TCP's), else to any. The listening id keeps
 * librdmacm's context of the device open, so it goes last: {@link #close} after every verbs
 * resource on the device is released, or {@link #destroyListener} once the device was removed. What
 * {@link #open} built before a failure stays for {@link #stop} and {@link #close}.
 */
final class CmListener {
  private static final Logger LOG = LoggerFactory.getLogger(CmListener.class);

  private final long timeoutMillis;
  private final ErrorHandler errors;
  private RdmaEventChannel channel;
  private CmEventLoop loop;
  private RdmaCmId listenId;
  private volatile int port;

  CmListener(long timeoutMillis, ErrorHandler errors) {
    this.timeoutMillis = timeoutMillis;
    this.errors = errors;
  }

  /**
   * Starts the loop, creates the listening id and binds it on {@code ip}; returns the device
   * context the address resolved to (null: not the address of an RDMA device). It listens only from
   * {@link #listen} on.
   */
  IbvContext open(InetAddress ip, int preferredPort, CmEventLoop.Events events) throws IOException {
    channel = RdmaEventChannel.createEventChannel();
    loop = new CmEventLoop(channel, events, errors);
    loop.start();
    listenId = loop.createId(timeoutMillis);
    try {
      bind(ip, preferredPort);
    } catch (IOException e) {
      LOG.info(
          "RDMA-CM port {} is taken ({}); listening on another", preferredPort, e.getMessage());
      bind(ip, 0);
    }
    port = ((InetSocketAddress) loop.call(listenId::getSource, timeoutMillis)).getPort();
    return loop.call(() -> listenId.getVerbs(), timeoutMillis);
  }

  private void bind(InetAddress ip, int port) throws IOException {
    loop.call(
        () -> {
          listenId.bindAddr(new InetSocketAddress(ip, port));
          return null;
        },
        timeoutMillis);
  }

  /** Starts accepting connect requests (they reach the loop's events). */
  void listen() throws IOException {
    loop.call(
        () -> {
          listenId.listen(128);
          return null;
        },
        timeoutMillis);
  }

  /** The RDMA-CM port readers connect to. */
  int port() {
    return port;
  }

  /** The loop; null before {@link #open}. */
  CmEventLoop loop() {
    return loop;
  }

  /** Destroys the listening id now (the device was removed). Loop thread. */
  void destroyListener() {
    CmEventLoop.destroyNow(listenId);
    listenId = null;
  }

  /**
   * Stops the loop after it ran what was queued (reading channels' id destructions); whether it
   * ended. The listening id stays until {@link #close}.
   */
  boolean stop() {
    return loop == null || loop.stop();
  }

  /**
   * Destroys the listening id and the event channel; only once {@link #stop} said the loop ended.
   */
  void close() {
    if (listenId != null) {
      CmEventLoop.destroyNow(listenId); // the loop thread has ended: no concurrent CM use
      listenId = null;
    }
    if (channel != null) {
      try {
        channel.destroyEventChannel();
      } catch (IOException | RuntimeException e) {
        LOG.debug("destroying the RDMA-CM event channel failed", e);
      }
    }
  }
}
