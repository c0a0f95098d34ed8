/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.network.TransportContext;
import org.apache.spark.network.buffer.FileSegmentManagedBuffer;
import org.apache.spark.network.buffer.ManagedBuffer;
import org.apache.spark.network.client.ChunkReceivedCallback;
import org.apache.spark.network.client.RpcResponseCallback;
import org.apache.spark.network.client.TransportClient;
import org.apache.spark.network.client.TransportClientFactory;
import org.apache.spark.network.server.RpcHandler;
import org.apache.spark.network.server.StreamManager;
import org.apache.spark.network.server.TransportServer;
import org.apache.spark.network.util.MapConfigProvider;
import org.apache.spark.network.util.TransportConf;

/**
 * Spark's own shuffle network stack with its default settings: a {@code TransportServer} whose
 * stream manager serves file segments ({@code FileSegmentManagedBuffer}, sent with sendfile as in
 * Spark's shuffle), and a {@code TransportClient} fetching them as chunks, with the same window of
 * requests in flight.
 */
final class SparkNetworkFetcher implements FetchSide {
  private final TransportContext context;
  private final TransportServer server;
  private final TransportClientFactory factory;
  private final TransportClient client;
  private final TransportConf conf;
  private volatile int blockSize;

  SparkNetworkFetcher(Path path) throws Exception {
    conf = new TransportConf("shuffle", new MapConfigProvider(Map.of()));
    File file = path.toFile();
    StreamManager streams =
        new StreamManager() {
          @Override
          public ManagedBuffer getChunk(long streamId, int chunkIndex) {
            return new FileSegmentManagedBuffer(
                conf, file, (long) chunkIndex * blockSize, blockSize);
          }
        };
    RpcHandler handler =
        new RpcHandler() {
          @Override
          public void receive(
              TransportClient c, java.nio.ByteBuffer message, RpcResponseCallback cb) {
            cb.onFailure(new UnsupportedOperationException("no RPCs in this benchmark"));
          }

          @Override
          public StreamManager getStreamManager() {
            return streams;
          }
        };
    context = new TransportContext(conf, handler);
    server = context.createServer("127.0.0.1", 0, List.of());
    factory = context.createClientFactory();
    client = factory.createClient("127.0.0.1", server.getPort());
  }

  @Override
  public String name() {
    return "Spark network-common "
        + org.apache.spark.network.util.JavaUtils.class.getPackage().getImplementationVersion()
        + " (io.mode "
        + conf.ioMode()
        + ")";
  }

  @Override
  public long fetchAll(int size, int blocks, int passes, int window) throws Exception {
    this.blockSize = size;
    int total = blocks * passes;
    AtomicInteger next = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(total);
    ChunkReceivedCallback callback =
        new ChunkReceivedCallback() {
          @Override
          public void onSuccess(int chunkIndex, ManagedBuffer buffer) {
            bytes.addAndGet(buffer.size());
            done.countDown();
            int i = next.getAndIncrement();
            if (i < total) {
              client.fetchChunk(0, i % blocks, this);
            }
          }

          @Override
          public void onFailure(int chunkIndex, Throwable e) {
            failure.compareAndSet(null, e);
            while (done.getCount() > 0) {
              done.countDown();
            }
          }
        };
    for (int w = 0; w < Math.min(window, total); w++) {
      client.fetchChunk(0, next.getAndIncrement() % blocks, callback);
    }
    if (!done.await(10, TimeUnit.MINUTES)) {
      throw new IllegalStateException("chunk fetches did not finish");
    }
    if (failure.get() != null) {
      throw new IllegalStateException("chunk fetch failed", failure.get());
    }
    return bytes.get();
  }

  @Override
  public void close() {
    client.close();
    factory.close();
    server.close();
    context.close();
  }
}
