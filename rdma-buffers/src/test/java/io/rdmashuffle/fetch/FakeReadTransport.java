/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A transport whose READs go nowhere until the test says: every posted READ is recorded, and the
 * test completes it (or fails it) when it wants, so the scheduling logic of the readers is tested
 * on its own, without timing. Connects can be held back ({@link #holdConnects}).
 */
final class FakeReadTransport implements Transport {
  final CountingRegistrar registrar = new CountingRegistrar();
  private final TransportMetrics metrics = new TransportMetrics();

  /** Every READ posted and not yet completed by the test, in posting order. */
  private final List<ReadOp> posted = new ArrayList<>();

  private final java.util.IdentityHashMap<ReadOp, PeerAddress> peerOf =
      new java.util.IdentityHashMap<>();

  private volatile CountDownLatch connects = new CountDownLatch(0);
  volatile int connectsMade;

  /** When set, every connect fails with it. */
  volatile TransportException connectFailure;

  /** Connects wait until {@link #releaseConnects}. */
  void holdConnects() {
    connects = new CountDownLatch(1);
  }

  void releaseConnects() {
    connects.countDown();
  }

  /** The READs posted and not completed, in posting order. */
  synchronized List<ReadOp> posted() {
    return new ArrayList<>(posted);
  }

  /** The READs posted to {@code peer} and not completed. */
  synchronized List<ReadOp> postedTo(PeerAddress peer) {
    List<ReadOp> out = new ArrayList<>();
    for (ReadOp op : posted) {
      if (peerOf.get(op).equals(peer)) {
        out.add(op);
      }
    }
    return out;
  }

  /** Completes {@code op} as the transport would: its bytes are there. */
  void complete(ReadOp op) {
    synchronized (this) {
      if (!posted.remove(op)) {
        throw new IllegalStateException("not posted: " + op);
      }
      peerOf.remove(op);
    }
    op.target().release();
    op.listener().onReadComplete(op);
  }

  @Override
  public TransportKind kind() {
    return TransportKind.TCP;
  }

  @Override
  public PeerAddress localAddress() {
    return new PeerAddress("198.18.0.1", 1);
  }

  @Override
  public MemoryRegistrar registrar() {
    return registrar;
  }

  @Override
  public ReadChannel connect(PeerAddress peer, String application) throws TransportException {
    try {
      if (!connects.await(10, TimeUnit.SECONDS)) {
        throw new ConnectionLostException("connect held too long", peer, null, null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionLostException("interrupted", peer, null, e);
    }
    if (connectFailure != null) {
      throw connectFailure;
    }
    connectsMade++;
    return new Channel(peer, application);
  }

  @Override
  public TransportMetrics metrics() {
    return metrics;
  }

  @Override
  public void serveCalls(int service, CallHandler handler) {}

  @Override
  public CompletableFuture<ByteBuffer> call(
      PeerAddress peer, String application, int service, ByteBuffer request) {
    return CompletableFuture.failedFuture(new IllegalStateException("no calls here"));
  }

  @Override
  public void close() {}

  /** A connection that records what is posted on it. */
  private final class Channel implements ReadChannel {
    final PeerAddress peer;
    final String application;

    Channel(PeerAddress peer, String application) {
      this.peer = peer;
      this.application = application;
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
      return true;
    }

    @Override
    public boolean tryPost(ReadOp op) {
      post(op);
      return true;
    }

    @Override
    public void post(ReadOp op) {
      if (!op.target().tryRetain()) {
        throw new IllegalStateException("READ target region is not open: " + op);
      }
      synchronized (FakeReadTransport.this) {
        posted.add(op);
        peerOf.put(op, peer);
      }
    }

    @Override
    public void postAll(List<ReadOp> ops) {
      ops.forEach(this::post);
    }

    @Override
    public int inFlight() {
      return postedTo(peer).size();
    }

    @Override
    public void close() {}
  }
}
