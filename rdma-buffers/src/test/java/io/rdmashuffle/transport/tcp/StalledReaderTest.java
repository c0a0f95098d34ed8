/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader that asks for 1 GiB and never reads the answer must not pin the served file: once the
 * file is withdrawn, its mapping and descriptor are gone within the withdraw bound, and meanwhile
 * other readers are served.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StalledReaderTest {
  private static final String APP = "app-stall";
  private static final byte[] SECRET = "stall-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  private static final int GIB = 1 << 30;

  @TempDir Path dir;

  private static Transport start(Map<String, String> extra) throws Exception {
    Map<String, String> m = new java.util.HashMap<>(Map.of("spark.shuffle.rdma.transport", "tcp"));
    m.putAll(extra);
    return Transports.tcp(
        RdmaConf.of(TestSchema.SPARK_KEYS, m),
        ApplicationSecrets.of(APP, SECRET),
        "127.0.0.1",
        new TransportMetrics());
  }

  /** Whether this process maps {@code file} or holds a descriptor of it. */
  static boolean pins(Path file) throws IOException {
    String name = file.toRealPath().toString();
    for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
      if (line.endsWith(name)) {
        return true;
      }
    }
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).toString().equals(name)) {
            return true;
          }
        } catch (IOException e) {
          // closed while listing
        }
      }
    }
    return false;
  }

  @Test
  void aWithdrawnFileIsUnpinnedWithinTheBoundWhileItsReaderNeverReads() throws Exception {
    Path sparse = dir.resolve("sparse-1g");
    try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
      f.setLength(GIB);
    }
    try (Transport server = start(Map.of("spark.shuffle.rdma.server.withdrawTimeout", "2s"));
        Transport client = start(Map.of());
        BufferPool pool = new BufferPool(client.registrar(), 4096, 1 << 20, 16 << 20, true)) {
      RegisteredFile file = RegisteredFile.open(sparse, GIB, server.registrar(), APP);
      RegisteredRegion piece = file.pieces().get(0);
      try (SocketChannel stalled = SocketChannel.open()) {
        stalled.setOption(StandardSocketOptions.SO_RCVBUF, 64 * 1024);
        stalled.connect(server.localAddress().socketAddress());
        Handshake.Result proven = Handshake.client(stalled, APP, SECRET, Purpose.READ);
        byte[] frame = new byte[TcpFrameLayout.REQUEST_BYTES];
        TcpFrameLayout.encodeRequest(
            frame, 0, 0, piece.rkey(), GIB, piece.address(), proven.clientToServer());
        ByteBuffer request = ByteBuffer.wrap(frame);
        while (request.hasRemaining()) {
          stalled.write(request);
        }
        Thread.sleep(1000); // the send is under way and stuck on our full receive buffer
        assertTrue(pins(sparse), "the served file should be mapped while registered");

        assertOthersAreServed(server, client, pool, dir);

        long t0 = System.nanoTime();
        file.close();
        // the withdraw bound (2 s) plus the I/O thread's check interval, with room for a loaded
        // host
        long bound = TimeUnit.SECONDS.toNanos(6);
        while (pins(sparse) && System.nanoTime() - t0 < bound) {
          Thread.sleep(50);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertFalse(pins(sparse), "the withdrawn file is still mapped or open after " + ms + " ms");
        assertTrue(ms >= 1500, "the send was ended after " + ms + " ms, before the 2 s bound");
        assertEquals(1, server.metrics().refusals(Refusal.WITHDRAWN));
      }
    }
  }

  private static void assertOthersAreServed(
      Transport server, Transport client, BufferPool pool, Path dir) throws Exception {
    Path small = io.rdmashuffle.testing.Patterns.file(dir.resolve("small"), 1 << 20, 5);
    try (RegisteredFile f = RegisteredFile.open(small, 1 << 20, server.registrar(), APP)) {
      ReadChannel c = client.connect(server.localAddress(), APP);
      try {
        PooledBuffer b = pool.allocate(1 << 20, 10, TimeUnit.SECONDS);
        try {
          ReadResults results = new ReadResults(1);
          RegisteredRegion r = f.pieces().get(0);
          c.post(new ReadOp().set(r.address(), r.rkey(), 1 << 20, b, 0, results));
          assertTrue(results.await(30, TimeUnit.SECONDS));
          assertEquals(List.of(), results.failures());
          assertEquals(
              -1, io.rdmashuffle.testing.Patterns.firstMismatch(b.buffer(), 0, 1 << 20, 0, 5));
        } finally {
          b.release();
        }
      } finally {
        c.close();
      }
    }
  }
}
