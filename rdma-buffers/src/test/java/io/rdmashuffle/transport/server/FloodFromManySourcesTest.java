/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.NetNamespace;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.ServingProcess;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.testing.Transports;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import io.rdmashuffle.transport.tcp.TcpTransport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two floods of issue 22 item 5 against a serving process in a network namespace of its own,
 * from 8 and from 64 source addresses of this side (each its own /24, 198.19.N.1; the link is
 * 198.18.210.0/24), while legitimate readers from another address READ: 1024 sockets that connect
 * and never speak, and authenticated CALL peers that send requests without end and never read an
 * answer. Every legitimate READ is served during the flood, and afterwards the server's threads,
 * descriptors, direct memory and heap are back where they were (the call workers a flood started
 * end after a minute idle). Root only; full tier (about 4 minutes for the four floods). The
 * namespace and its link are deleted after each flood.
 */
@EnabledIfSystemProperty(named = "rdmashuffle.tier", matches = "full")
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class FloodFromManySourcesTest {
  private static final String NS = "tflood";
  private static final String HOST = "198.18.210.1";
  private static final String SERVER = "198.18.210.2";
  private static final int SOURCES = 64;
  private static final String APP = "app-flood";
  private static final byte[] SECRET = "flood-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);
  private static final int REGION = 1 << 20;
  private static final int SEED = 41;
  private static final int READERS = 10;

  /** The serving JVM in the namespace: its READY line and its resource figures. */
  private static final class Server implements AutoCloseable {
    final Process process;
    final BufferedReader out;
    final OutputStream in;
    final PeerAddress address;
    final int rkey;
    final long regionAddress;
    final java.util.concurrent.BlockingQueue<String> answers =
        new java.util.concurrent.LinkedBlockingQueue<>();

    Server(NetNamespace ns, String... settings) throws IOException {
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx256m",
                  "-XX:MaxDirectMemorySize=64m",
                  "-cp",
                  System.getProperty("rdma.test.classpath", System.getProperty("java.class.path")),
                  ServingProcess.class.getName(),
                  "tcp",
                  SERVER,
                  APP,
                  new String(SECRET, StandardCharsets.UTF_8),
                  Integer.toString(REGION),
                  Integer.toString(SEED)));
      cmd.addAll(List.of(settings));
      process = new ProcessBuilder(ns.exec(cmd)).redirectErrorStream(true).start();
      out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      in = process.getOutputStream();
      Thread drain =
          new Thread(
              () -> {
                try {
                  String line;
                  while ((line = out.readLine()) != null) {
                    if (line.startsWith("READY") || line.startsWith("STATS")) {
                      answers.add(line);
                    } else if (line.contains("WARN")
                        || line.contains("ERROR")
                        || line.contains("Exception")) {
                      System.out.println("server: " + line); // what it refused, and why
                    }
                  }
                } catch (IOException e) {
                  // the process ended
                }
                answers.add("END");
              },
              "serving-process-output");
      drain.setDaemon(true);
      drain.start();
      String[] f = awaitLine("READY").split(" ");
      address = new PeerAddress(SERVER, Integer.parseInt(f[1]));
      rkey = Integer.parseInt(f[2]);
      regionAddress = Long.parseLong(f[3]);
    }

    private String awaitLine(String prefix) throws IOException {
      String line;
      try {
        line = answers.poll(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        throw new IOException("interrupted", e);
      }
      assertTrue(
          line != null && line.startsWith(prefix),
          "serving process answered " + line + " instead of " + prefix);
      return line;
    }

    /** threads, direct bytes, descriptors, heap bytes (after a collection). */
    long[] stats() throws IOException {
      in.write("STATS\n".getBytes(StandardCharsets.US_ASCII));
      in.flush();
      String[] f = awaitLine("STATS").split(" ");
      return new long[] {
        Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])
      };
    }

    @Override
    public void close() {
      try {
        Thread.sleep(500); // its last log lines
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static List<String> sources(int n) {
    List<String> a = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      a.add("198.19." + i + ".1");
    }
    return a;
  }

  @ParameterizedTest(name = "from {0} sources")
  @ValueSource(ints = {8, 64})
  void idleSocketsFromManySourcesCrowdOutNoReader(int sources) throws Exception {
    assumeTrue(NetNamespace.available(), "needs root and ip");
    try (NetNamespace ns = NetNamespace.create(NS, HOST, SERVER, sources(SOURCES));
        Server server = new Server(ns);
        Reader reader = new Reader(server)) {
      reader.readAll();
      long[] before = server.stats();
      List<Socket> flood = new ArrayList<>();
      long[] during;
      try {
        List<String> from = sources(sources);
        for (int i = 0; i < 1024; i++) {
          Socket s = new Socket();
          flood.add(s);
          s.bind(new InetSocketAddress(InetAddress.getByName(from.get(i % sources)), 0));
          try {
            s.connect(server.address.socketAddress(), 5000);
          } catch (java.net.SocketException reset) {
            // refused or dropped at once: a bound at work
          }
        }
        long t0 = System.nanoTime();
        reader.readAll();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        during = server.stats();
        System.out.printf(
            "idle flood from %d sources: %d legitimate READ connections served in %d ms%n",
            sources, READERS, ms);
      } finally {
        for (Socket s : flood) {
          s.close();
        }
      }
      assertBackToBaseline(server, before, during);
    }
  }

  @ParameterizedTest(name = "from {0} sources")
  @ValueSource(ints = {8, 64})
  void callPeersThatNeverReadCrowdOutNoReader(int sources) throws Exception {
    assumeTrue(NetNamespace.available(), "needs root and ip");
    try (NetNamespace ns = NetNamespace.create(NS, HOST, SERVER, sources(SOURCES));
        Server server = new Server(ns, "spark.shuffle.rdma.server.sendTimeout=3s");
        Reader reader = new Reader(server)) {
      reader.readAll();
      long[] before = server.stats();
      AtomicInteger cutOff = new AtomicInteger();
      List<Thread> peers = new ArrayList<>();
      List<Socket> sockets = new ArrayList<>();
      for (String from : sources(sources)) {
        Socket s = new Socket();
        sockets.add(s);
        s.setReceiveBufferSize(4096);
        s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        s.connect(server.address.socketAddress(), 5000);
        Handshake.Result r = Handshake.client(Handshake.channel(s), APP, SECRET, Purpose.CALL);
        FrameMac mac = r.clientToServer();
        Thread t =
            new Thread(
                () -> {
                  try {
                    OutputStream out = s.getOutputStream();
                    for (int id = 0; ; id++) {
                      out.write(
                          CallFrameLayout.encode(
                              id, ServingProcess.ANSWER_64K, new byte[0], 0, 0, mac));
                    }
                  } catch (IOException e) {
                    cutOff.incrementAndGet();
                  }
                },
                "never-reading-peer-" + from);
        t.setDaemon(true);
        t.start();
        peers.add(t);
      }
      long[] during;
      try {
        Thread.sleep(1000);
        long t0 = System.nanoTime();
        reader.readAll();
        ByteBuffer answer =
            reader
                .client
                .call(server.address, APP, ServingProcess.ANSWER_64K, ByteBuffer.allocate(1))
                .get(20, TimeUnit.SECONDS);
        assertEquals(64 << 10, answer.remaining());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        during = server.stats();
        System.out.printf(
            "never-reading CALL peers from %d sources: %d READ connections and a call served in"
                + " %d ms; server heap %d MiB above its baseline%n",
            sources, READERS, ms, (during[3] - before[3]) >> 20);
        for (Thread t : peers) {
          t.join(30_000);
        }
        assertEquals(sources, cutOff.get(), "peers that never read were not all cut off");
      } finally {
        for (Socket s : sockets) {
          s.close();
        }
      }
      assertBackToBaseline(server, before, during);
    }
  }

  /**
   * Waits up to 90 s for the server's figures to come back to {@code before} (call workers the
   * flood started end after a minute idle).
   */
  private static void assertBackToBaseline(Server server, long[] before, long[] during)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    long[] after = server.stats();
    while (System.nanoTime() < deadline && !back(before, after)) {
      Thread.sleep(500);
      after = server.stats();
    }
    System.out.printf(
        "threads/direct bytes/descriptors/heap: before %s, during %s, after %s%n",
        Arrays.toString(before), Arrays.toString(during), Arrays.toString(after));
    assertTrue(back(before, after), "not back to baseline: " + Arrays.toString(after));
  }

  private static boolean back(long[] before, long[] after) {
    return after[0] <= before[0] + 2
        && after[1] <= before[1] + (256 << 10)
        && after[2] <= before[2] + 4
        && after[3] <= before[3] + (16 << 20);
  }

  /** Legitimate readers: a tcp transport of this side, reading the served region. */
  private static final class Reader implements AutoCloseable {
    final TcpTransport client;
    final BufferPool pool;
    final Server server;

    Reader(Server server) throws Exception {
      this.server = server;
      RdmaConf conf =
          RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.transport", "tcp"));
      client =
          Transports.tcp(conf, ApplicationSecrets.of(APP, SECRET), HOST, new TransportMetrics());
      pool = new BufferPool(client.registrar(), 4096, 4 << 20, 16 << 20, true);
    }

    /** {@value #READERS} readers, each on a connection of its own, READ the region whole. */
    void readAll() throws Exception {
      for (int i = 0; i < READERS; i++) {
        ReadChannel c = client.connect(server.address, APP);
        try {
          PooledBuffer b = pool.allocate(REGION, 10, TimeUnit.SECONDS);
          try {
            ReadResults results = new ReadResults(1);
            c.post(new ReadOp().set(server.regionAddress, server.rkey, REGION, b, 0, results));
            assertTrue(results.await(30, TimeUnit.SECONDS), "reader " + i + " got no answer");
            assertEquals(List.of(), results.failures(), "reader " + i);
            assertEquals(-1, Patterns.firstMismatch(b.buffer(), 0, REGION, 0, SEED));
          } finally {
            b.release();
          }
        } finally {
          c.close();
        }
      }
    }

    @Override
    public void close() {
      pool.close();
      client.close();
    }
  }
}
