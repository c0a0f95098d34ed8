/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An idle process costs no wake-ups (issue 24 item 4): with a READ connection and a CALL connection
 * open between two tcp transports and nothing to do, none of their loop threads wakes while the
 * deadlines are far (the I/O threads sleep until the earliest one; the tcp transport has no timer
 * thread and no receiver thread per connection). Counted as the threads' voluntary context switches
 * in /proc, so nothing is timed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleLoopsTest {
  private static final String APP = "app-idle";
  private static final byte[] SECRET = "idle-secret-0123456789abc".getBytes(StandardCharsets.UTF_8);

  @Test
  void idleTransportsDoNotWakeTheirThreads() throws Exception {
    Map<String, String> m = new HashMap<>();
    m.put("spark.shuffle.rdma.transport", "tcp");
    RdmaConf conf = RdmaConf.of(TestSchema.SPARK_KEYS, m);
    ByteBuffer memory = DirectMemory.allocate(4096);
    try (TcpTransport server =
            Transports.tcp(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", metrics());
        TcpTransport client =
            Transports.tcp(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", metrics());
        BufferPool pool = new BufferPool(client.registrar(), 4096, 1 << 20, 4 << 20, true)) {
      server.serveCalls(7, (caller, request) -> ByteBuffer.allocate(1));
      RegisteredRegion region =
          server.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {});
      ReadChannel channel = client.connect(server.localAddress(), APP);
      PooledBuffer b = pool.allocate(4096, 10, TimeUnit.SECONDS);
      ReadResults results = new ReadResults(1);
      channel.post(new ReadOp().set(region.address(), region.rkey(), 4096, b, 0, results));
      assertTrue(results.await(10, TimeUnit.SECONDS));
      assertEquals(List.of(), results.failures());
      b.release();
      client.call(server.localAddress(), APP, 7, ByteBuffer.allocate(1)).get(10, TimeUnit.SECONDS);

      Thread.sleep(500); // what the last round left to do
      List<String> names = List.of("rdma-io-", "rdma-accept-", "rdma-tcp-");
      Map<String, Long> before = switches(names);
      assertFalse(before.isEmpty(), "no loop thread found");
      Thread.sleep(3000);
      Map<String, Long> after = switches(names);
      long woke = 0;
      StringBuilder which = new StringBuilder();
      for (Map.Entry<String, Long> e : after.entrySet()) {
        long n = e.getValue() - before.getOrDefault(e.getKey(), 0L);
        woke += n;
        if (n > 0) {
          which.append(' ').append(e.getKey()).append('=').append(n);
        }
      }
      assertTrue(woke <= 2, "loop threads woke " + woke + " times in 3 s idle:" + which);
      assertTrue(channel.isOpen());
      channel.close();
      region.close();
    } finally {
      DirectMemory.free(memory);
    }
  }

  private static TransportMetrics metrics() {
    return new TransportMetrics();
  }

  /** Voluntary context switches of this process's threads whose name starts with one of names. */
  private static Map<String, Long> switches(List<String> names) throws IOException {
    Map<String, Long> m = new HashMap<>();
    try (var tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        String comm;
        List<String> status;
        try {
          comm = Files.readString(t.resolve("comm")).trim();
          status = Files.readAllLines(t.resolve("status"));
        } catch (IOException gone) {
          continue;
        }
        if (names.stream().noneMatch(comm::startsWith)) {
          continue;
        }
        for (String line : status) {
          if (line.startsWith("voluntary_ctxt_switches:")) {
            m.put(t.getFileName() + "/" + comm, Long.parseLong(line.split("\\s+")[1]));
          }
        }
      }
    }
    return m;
  }
}
