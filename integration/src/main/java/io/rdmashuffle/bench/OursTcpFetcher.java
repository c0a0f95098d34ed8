/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Our tcp transport: the file is mapped and registered on the serving side; the reader keeps a
 * window of one-sided READs in flight into pooled registered buffers, re-posting each buffer for
 * the next block as its READ completes.
 */
final class OursTcpFetcher implements FetchSide {
  private static final String APP = "bench";
  private final Transport server;
  private final Transport client;
  private final RegisteredFile file;
  private final BufferPool pool;
  private final ConnectionPool connections;

  OursTcpFetcher(Path path) throws Exception {
    byte[] secret = "benchmark-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    Map<String, String> settings =
        new java.util.HashMap<>(Map.of("spark.shuffle.rdma.transport", "tcp"));
    String perPeer = System.getProperty("bench.connectionsPerPeer");
    if (perPeer != null) {
      settings.put("spark.shuffle.rdma.connectionsPerPeer", perPeer);
    }
    RdmaConf conf = RdmaConf.of(BenchSettings.SCHEMA, settings);
    server =
        TransportSelector.standard()
            .start(conf, ApplicationSecrets.of(APP, secret), "127.0.0.1", new TransportMetrics());
    client =
        TransportSelector.standard()
            .start(conf, ApplicationSecrets.of(APP, secret), "127.0.0.1", new TransportMetrics());
    file = RegisteredFile.open(path, 1L << 30, server.registrar(), APP);
    pool = new BufferPool(client.registrar(), 4096, 16 << 20, 1L << 30);
    connections = new ConnectionPool(client, conf.get(RdmaShuffleConfig.CONNECTIONS_PER_PEER));
  }

  @Override
  public String name() {
    return "rdma-shuffle tcp";
  }

  @Override
  public long fetchAll(int blockSize, int blocks, int passes, int window) throws Exception {
    RegisteredRegion piece = file.pieces().get(0);
    int total = blocks * passes;
    AtomicInteger next = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    AtomicReference<TransportException> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(total);
    List<PooledBuffer> buffers = new ArrayList<>();
    ReadListener listener =
        new ReadListener() {
          @Override
          public void onReadComplete(ReadOp op) {
            bytes.addAndGet(op.length());
            done.countDown();
            int i = next.getAndIncrement();
            if (i < total) {
              PooledBuffer b = (PooledBuffer) op.attachment();
              channelFor(i)
                  .post(
                      op.set(
                          piece.address() + (long) (i % blocks) * blockSize,
                          piece.rkey(),
                          blockSize,
                          b,
                          0,
                          this));
            }
          }

          @Override
          public void onReadFailed(ReadOp op, TransportException cause) {
            failure.compareAndSet(null, cause);
            while (done.getCount() > 0) {
              done.countDown();
            }
          }
        };
    try {
      List<ReadOp> first = new ArrayList<>();
      for (int w = 0; w < Math.min(window, total); w++) {
        PooledBuffer b = pool.allocate(blockSize, 10, TimeUnit.SECONDS);
        buffers.add(b);
        int i = next.getAndIncrement();
        first.add(
            new ReadOp()
                .set(
                    piece.address() + (long) (i % blocks) * blockSize,
                    piece.rkey(),
                    blockSize,
                    b,
                    0,
                    listener)
                .attach(b));
      }
      for (ReadOp op : first) {
        channelFor(0).post(op);
      }
      if (!done.await(10, TimeUnit.MINUTES)) {
        throw new IllegalStateException("READs did not finish");
      }
      if (failure.get() != null) {
        throw failure.get();
      }
      return bytes.get();
    } finally {
      buffers.forEach(PooledBuffer::release);
    }
  }

  /** A pooled connection (round-robin over connectionsPerPeer). */
  private ReadChannel channelFor(int i) {
    try {
      return connections.channel(server.localAddress(), APP);
    } catch (TransportException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    connections.close();
    file.close();
    pool.close();
    client.close();
    server.close();
  }
}
