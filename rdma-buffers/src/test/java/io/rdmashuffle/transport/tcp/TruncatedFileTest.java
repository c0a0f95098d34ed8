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
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A served file truncated after it was registered (issue 22 item 4): a small READ of it is answered
 * "deregistered" (the reader asks the owner again, which finds the file damaged), and the I/O
 * thread never touches the mapping, where the missing pages would raise SIGBUS (an asynchronous
 * InternalError in the thread that copies them); the connection goes on serving.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TruncatedFileTest {
  private static final String APP = "app-truncated";
  private static final byte[] SECRET = "trunc-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  private static final int FILE = 1 << 20;

  @TempDir Path dir;

  @Test
  void aSmallReadOfATruncatedFileIsRefusedAndTheIoThreadGoesOn() throws Exception {
    RdmaConf conf =
        RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.transport", "tcp"));
    Path truncated = Patterns.file(dir.resolve("truncated"), FILE, 3);
    Path intact = Patterns.file(dir.resolve("intact"), FILE, 4);
    try (TcpTransport server =
            Transports.tcp(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", metrics());
        TcpTransport client =
            Transports.tcp(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", metrics());
        BufferPool pool = new BufferPool(client.registrar(), 4096, 1 << 20, 4 << 20, true);
        RegisteredFile t = RegisteredFile.open(truncated, FILE, server.registrar(), APP);
        RegisteredFile i = RegisteredFile.open(intact, FILE, server.registrar(), APP)) {
      try (RandomAccessFile f = new RandomAccessFile(truncated.toFile(), "rw")) {
        f.setLength(0);
      }
      ReadChannel c = client.connect(server.localAddress(), APP);
      try {
        RegisteredRegion gone = t.pieces().get(0);
        TransportException e = read(c, pool, gone, 8192, 4096);
        assertInstanceOf(RemoteAccessException.class, e, "a READ of pages that are gone");
        assertEquals(
            RemoteAccessException.Reason.DEREGISTERED, ((RemoteAccessException) e).reason());
        assertEquals(
            0,
            server.metrics().refusals(Refusal.CONNECTION_FAILED),
            "the I/O thread failed (SIGBUS in the mapping?)");
        assertTrue(c.isOpen(), "the connection was closed");
        RegisteredRegion ok = i.pieces().get(0);
        assertNull(read(c, pool, ok, 4096, 16384), "the connection does not serve any more");
      } finally {
        c.close();
      }
    }
  }

  /**
   * 64 MiB of a file served in 32 KiB READs (the largest that are composed in the staging buffer):
   * none of its pages is mapped into the serving process (RssFile grows by less than 8 MiB; through
   * the mapping it grew by the 64 MiB served).
   */
  @Test
  void smallReadsOfAFileAddNothingToTheResidentSize() throws Exception {
    int size = 64 << 20;
    int chunk = ReadSession.COPY_LIMIT;
    RdmaConf conf =
        RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.transport", "tcp"));
    Path served = Patterns.file(dir.resolve("served"), size, 4);
    try (TcpTransport server =
            Transports.tcp(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", metrics());
        TcpTransport client =
            Transports.tcp(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", metrics());
        BufferPool pool = new BufferPool(client.registrar(), 4096, 1 << 20, 4 << 20, true);
        RegisteredFile f = RegisteredFile.open(served, size, server.registrar(), APP)) {
      ReadChannel c = client.connect(server.localAddress(), APP);
      try {
        RegisteredRegion r = f.pieces().get(0);
        long before = rssFile();
        for (long offset = 0; offset < size; offset += chunk) {
          assertNull(read(c, pool, r, offset, chunk), "READ at " + offset);
        }
        long grown = rssFile() - before;
        assertTrue(grown < 8 << 20, "RssFile grew by " + (grown >> 20) + " MiB serving 64 MiB");
      } finally {
        c.close();
      }
    }
  }

  /** This process's resident file-backed pages, in bytes (/proc/self/status RssFile). */
  private static long rssFile() throws java.io.IOException {
    for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("RssFile:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
      }
    }
    throw new AssertionError("no RssFile in /proc/self/status");
  }

  /** READs {@code length} at {@code offset} of {@code r}; null when it succeeded with its bytes. */
  private static TransportException read(
      ReadChannel c, BufferPool pool, RegisteredRegion r, long offset, int length)
      throws Exception {
    PooledBuffer b = pool.allocate(length, 10, TimeUnit.SECONDS);
    try {
      ReadResults results = new ReadResults(1);
      c.post(new ReadOp().set(r.address() + offset, r.rkey(), length, b, 0, results));
      assertTrue(results.await(20, TimeUnit.SECONDS), "the READ neither completed nor failed");
      List<TransportException> failures = results.failures();
      if (failures.isEmpty()) {
        assertEquals(-1, Patterns.firstMismatch(b.buffer(), 0, length, offset, 4));
        return null;
      }
      return failures.get(0);
    } finally {
      b.release();
    }
  }

  private static TransportMetrics metrics() {
    return new TransportMetrics();
  }
}
