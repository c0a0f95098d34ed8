/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.ServingProcess;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A serving process with 16 MiB of direct memory, flooded by 500 connections that never handshake
 * and 500 that send garbage (each flood from its own loopback address, as a hostile host would): a
 * real reader from another address connects and READs correctly during the flood, and afterwards
 * the server's threads, direct memory and descriptors are back where they were.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConnectionFloodTest {
  private static final String APP = "app-flood";
  private static final byte[] SECRET = "flood-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  private static final int REGION = 1 << 20;
  private static final int SEED = 31;

  /** The serving JVM: its READY line and a way to ask for its resource figures. */
  private static final class Server implements AutoCloseable {
    final Process process;
    final BufferedReader out;
    final OutputStream in;
    final int port;
    final int rkey;
    final long address;

    Server(String... settings) throws IOException {
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx128m",
                  "-XX:MaxDirectMemorySize=16m",
                  "--add-exports",
                  "java.base/sun.nio.ch=ALL-UNNAMED",
                  "-cp",
                  System.getProperty("rdma.test.classpath", System.getProperty("java.class.path")),
                  ServingProcess.class.getName(),
                  "tcp",
                  "127.0.0.1",
                  APP,
                  new String(SECRET, StandardCharsets.UTF_8),
                  Integer.toString(REGION),
                  Integer.toString(SEED)));
      cmd.addAll(List.of(settings));
      ProcessBuilder pb = new ProcessBuilder(cmd);
      pb.redirectErrorStream(true);
      process = pb.start();
      out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      in = process.getOutputStream();
      String line = awaitLine("READY");
      String[] f = line.split(" ");
      port = Integer.parseInt(f[1]);
      rkey = Integer.parseInt(f[2]);
      address = Long.parseLong(f[3]);
    }

    private String awaitLine(String prefix) throws IOException {
      String line;
      while ((line = out.readLine()) != null && !line.startsWith(prefix)) {
        // the child's log lines
      }
      assertNotNull(line, "serving process ended before printing " + prefix);
      return line;
    }

    /** threads, direct bytes, descriptors. */
    long[] stats() throws IOException {
      in.write("STATS\n".getBytes(StandardCharsets.US_ASCII));
      in.flush();
      String[] f = awaitLine("STATS").split(" ");
      return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])};
    }

    @Override
    public void close() {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A connection from {@code from}, or null when the server reset it at once (a refusal). */
  private static Socket open(String from, int port) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
    try {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    } catch (java.net.SocketException e) {
      // a reset; a timeout (nobody accepts any more, the failure looked for) is not caught
      s.close();
      return null;
    }
    return s;
  }

  @Test
  void aFloodOfIdleAndGarbageConnectionsNeitherStopsServingNorLeaksResources() throws Exception {
    RdmaConf conf =
        RdmaConf.of(
            TestSchema.SPARK_KEYS,
            Map.of(
                "spark.shuffle.rdma.transport",
                "tcp",
                "spark.shuffle.rdma.connect.timeout",
                "10s"));
    try (Server server = new Server("spark.shuffle.rdma.connect.timeout=5s");
        Transport client =
            TransportSelector.standard()
                .start(
                    conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", new TransportMetrics());
        BufferPool pool = new BufferPool(client.registrar(), 4096, 4 << 20, 64 << 20, true)) {
      PeerAddress peer = new PeerAddress("127.0.0.1", server.port);
      readAndCheck(client, pool, peer, server);
      long[] before = server.stats();

      List<Socket> flood = new ArrayList<>();
      int held;
      long[] during;
      Random random = new Random(7);
      try {
        for (int i = 0; i < 500; i++) {
          Socket s = open("127.0.0.2", server.port);
          if (s != null) {
            flood.add(s);
          }
        }
        byte[] garbage = new byte[4096];
        for (int i = 0; i < 500; i++) {
          Socket s = open("127.0.0.3", server.port);
          if (s == null) {
            continue;
          }
          flood.add(s);
          random.nextBytes(garbage);
          try {
            s.getOutputStream().write(garbage);
          } catch (IOException e) {
            // the server dropped it already: that is a refusal
          }
        }
        held = flood.size();
        during = server.stats();
        long t0 = System.nanoTime();
        readAndCheck(client, pool, peer, server);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 10_000, "a real READ took " + ms + " ms during the flood");
      } finally {
        for (Socket s : flood) {
          s.close();
        }
      }
      long[] after = awaitStats(server, before);
      System.out.printf(
          "flood: %d of 1000 connects completed (the rest were reset at once);"
              + " threads/direct bytes/descriptors before %s, during %s, after %s%n",
          held,
          java.util.Arrays.toString(before),
          java.util.Arrays.toString(during),
          java.util.Arrays.toString(after));
      assertTrue(
          after[0] <= before[0] + 2,
          "threads: " + before[0] + " before the flood, " + after[0] + " after");
      assertTrue(
          after[1] <= before[1] + (256 << 10),
          "direct memory: " + before[1] + " before the flood, " + after[1] + " after");
      assertTrue(
          after[2] <= before[2] + 4,
          "descriptors: " + before[2] + " before the flood, " + after[2] + " after");
    }
  }

  /** Waits up to 20 s for the server's figures to come back to {@code before}. */
  private static long[] awaitStats(Server server, long[] before) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    long[] s = server.stats();
    while (System.nanoTime() < deadline
        && (s[0] > before[0] + 2 || s[1] > before[1] + (256 << 10) || s[2] > before[2] + 4)) {
      Thread.sleep(200);
      s = server.stats();
    }
    return s;
  }

  private static void readAndCheck(
      Transport client, BufferPool pool, PeerAddress peer, Server server) throws Exception {
    ReadChannel c = client.connect(peer, APP);
    try {
      PooledBuffer b = pool.allocate(REGION, 10, TimeUnit.SECONDS);
      try {
        ReadResults results = new ReadResults(1);
        c.post(new ReadOp().set(server.address, server.rkey, REGION, b, 0, results));
        assertTrue(results.await(30, TimeUnit.SECONDS), "READ neither completed nor failed");
        assertEquals(List.of(), results.failures());
        assertEquals(-1, Patterns.firstMismatch(b.buffer(), 0, REGION, 0, SEED));
      } finally {
        b.release();
      }
    } finally {
      c.close();
    }
  }
}
