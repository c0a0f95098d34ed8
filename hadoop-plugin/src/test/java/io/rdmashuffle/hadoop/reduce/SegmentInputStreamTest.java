/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.hadoop.testing.ForwardingTransport;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class SegmentInputStreamTest {
  private static final String JOB = "job_1_0001";
  private static final byte[] SECRET =
      "segment-stream-secret-0123".getBytes(StandardCharsets.UTF_8);
  @TempDir Path dir;
  private TcpTransport server;
  private TcpTransport client;
  private BufferPool pool;
  private ConnectionPool connections;
  private RegisteredFile file;

  @BeforeEach
  void start() throws Exception {
    RdmaConf conf =
        RdmaConf.of(MapReduceConfig.SCHEMA, Map.of("mapreduce.shuffle.rdma.read.timeout", "5s"));
    server =
        Transports.tcp(
            conf, ApplicationSecrets.of(JOB, SECRET), "127.0.0.1", new TransportMetrics());
    client =
        Transports.tcp(
            conf, ApplicationSecrets.of(JOB, SECRET), "127.0.0.1", new TransportMetrics());
    pool = new BufferPool(client.registrar(), 4096, 1 << 20, 64 << 20, true);
    connections = new ConnectionPool(client, 2);
    file =
        RegisteredFile.open(
            Patterns.file(dir.resolve("file.out"), 5 * 65536 + 123, 3),
            65536,
            server.registrar(),
            JOB);
  }

  @AfterEach
  void stop() {
    file.close();
    connections.close();
    assertEquals(List.of(), pool.leaks());
    pool.close();
    client.close();
    server.close();
  }

  private SegmentInputStream stream(long start, long length, int chunk, long inFlight) {
    return new SegmentInputStream(
        connections,
        pool,
        server.localAddress(),
        JOB,
        file.descriptor(),
        start,
        length,
        chunk,
        inFlight,
        1000,
        () -> {});
  }

  @Test
  void readsManyChunksAcrossPiecesInFileOrder() throws Exception {
    Random r = new Random(5);
    for (int i = 0; i < 20; i++) {
      long start = r.nextInt(100_000);
      long length = r.nextInt((int) (file.length() - start));
      int chunk = 4096 << r.nextInt(5);
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      try (SegmentInputStream in = stream(start, length, chunk, 3L * chunk)) {
        byte[] buf = new byte[1 + r.nextInt(20_000)];
        int n;
        while ((n = in.read(buf, 0, buf.length)) > 0) {
          got.write(buf, 0, n);
        }
        assertEquals(-1, in.read());
      }
      assertEquals(
          length, got.size(), "segment " + start + "+" + length + " in chunks of " + chunk);
      assertEquals(
          -1,
          Patterns.firstMismatch(ByteBuffer.wrap(got.toByteArray()), 0, (int) length, start, 3));
    }
  }

  @Test
  void closingHalfWayReturnsEveryBuffer() throws Exception {
    try (SegmentInputStream in = stream(0, file.length(), 8192, 64 * 1024)) {
      in.readNBytes(20_000);
    }
    long deadline = System.currentTimeMillis() + 5000;
    while (pool.lentBytes() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(0, pool.lentBytes());
  }

  @Test
  void aSegmentOfTheDeregisteredFileFailsAsARemoteAccessFailure() throws Exception {
    file.close();
    try (SegmentInputStream in = stream(0, 1000, 4096, 8192)) {
      SegmentInputStream.ReadFailure f =
          assertThrows(SegmentInputStream.ReadFailure.class, () -> in.read());
      assertInstanceOf(io.rdmashuffle.transport.RemoteAccessException.class, f.reason());
      assertSame(f, in.failure());
    }
  }

  @Test
  void outOfOrderChunksNeverHoldMoreThanTheBoundAndOneChunk() throws Exception {
    int chunk = 8192;
    long inFlight = 4L * chunk;
    long chunk0 = file.descriptor().pieces().get(0).address();
    ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    // the READ of chunk 0 is posted late: the chunks after it arrive first and wait, held
    Transport delaying =
        new DelayingTransport(
            client,
            op -> op.remoteAddress() == chunk0,
            (channel, op) -> later.schedule(() -> channel.post(op), 400, TimeUnit.MILLISECONDS));
    ConnectionPool slow = new ConnectionPool(delaying, 2);
    AtomicLong most = new AtomicLong();
    AtomicBoolean reading = new AtomicBoolean(true);
    Thread sampler =
        new Thread(
            () -> {
              while (reading.get()) {
                most.accumulateAndGet(pool.lentBytes(), Math::max);
                Thread.onSpinWait();
              }
            });
    sampler.start();
    long length = 40L * chunk;
    byte[] got;
    try (SegmentInputStream in =
        new SegmentInputStream(
            slow,
            pool,
            server.localAddress(),
            JOB,
            file.descriptor(),
            0,
            length,
            chunk,
            inFlight,
            1000,
            () -> {})) {
      got = in.readAllBytes();
    } finally {
      reading.set(false);
      sampler.join();
      slow.close();
      later.shutdownNow();
    }
    assertEquals(-1, Patterns.firstMismatch(ByteBuffer.wrap(got), 0, (int) length, 0, 3));
    assertTrue(most.get() > 0);
    assertTrue(
        most.get() <= inFlight + chunk,
        "held " + most.get() + " bytes of registered memory; bound " + inFlight + " + a chunk");
  }

  /** The client's transport, with some READs posted by someone else (later). */
  private static final class DelayingTransport extends ForwardingTransport {
    private final Predicate<ReadOp> delayed;
    private final BiConsumer<ReadChannel, ReadOp> postLater;

    DelayingTransport(
        Transport t, Predicate<ReadOp> delayed, BiConsumer<ReadChannel, ReadOp> postLater) {
      super(t);
      this.delayed = delayed;
      this.postLater = postLater;
    }

    @Override
    public ReadChannel connect(PeerAddress peer, String application) throws TransportException {
      ReadChannel c = delegate.connect(peer, application);
      return new ReadChannel() {
        @Override
        public PeerAddress peer() {
          return c.peer();
        }

        @Override
        public String application() {
          return c.application();
        }

        @Override
        public boolean isOpen() {
          return c.isOpen();
        }

        @Override
        public boolean tryPost(ReadOp op) {
          if (delayed.test(op)) {
            postLater.accept(c, op);
            return true;
          }
          return c.tryPost(op);
        }

        @Override
        public void post(ReadOp op) {
          if (delayed.test(op)) {
            postLater.accept(c, op);
          } else {
            c.post(op);
          }
        }

        @Override
        public void postAll(List<ReadOp> ops) {
          for (ReadOp op : ops) {
            post(op);
          }
        }

        @Override
        public int inFlight() {
          return c.inFlight();
        }

        @Override
        public void close() {
          c.close();
        }
      };
    }
  }
}
