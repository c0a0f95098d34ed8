/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.tools.Cli;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What the serving side of the tcp transport costs per connection: a serving JVM (started by this
 * runner with the same class path) is measured (live threads, heap used after a collection, direct
 * memory, open descriptors) idle, with 500 connections that have not handshaken (from five loopback
 * addresses, 100 each, within the default per-source bound), and with 300 authenticated READ
 * connections, each of which has completed one READ.
 *
 * <p>{@code bin/rdma-shuffle bench server-footprint}; its arguments: {@link #USAGE}.
 */
public final class ServerFootprint {
  private static final String APP = "footprint";
  private static final byte[] SECRET =
      "footprint-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  static final String USAGE =
      """
      usage: bin/rdma-shuffle bench server-footprint [--out FILE]
        What the serving side of our tcp transport costs per connection (threads, heap, direct
        memory, descriptors of a serving JVM): idle, with 500 connections before their handshake,
        with 300 authenticated READ connections. The table goes to standard output and to --out.
      """;

  private ServerFootprint() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && args[0].equals("serve")) {
      serve(); // the serving JVM this runner starts
      return;
    }
    Cli.main("bench server-footprint", USAGE, args, ServerFootprint::measure);
  }

  private static int measure(Cli a) throws Exception {
    Path out = a.option("out", null, Paths::get);
    a.done();
    StringBuilder report = new StringBuilder("# Serving-side footprint per connection (tcp)\n\n");
    report.append(Machine.describe()).append('\n');
    Process p =
        new ProcessBuilder(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:MaxDirectMemorySize=1g",
                "-cp",
                System.getProperty("java.class.path"),
                ServerFootprint.class.getName(),
                "serve")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader from =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    OutputStream to = p.getOutputStream();
    try {
      String[] ready = line(from, "READY").split(" ");
      PeerAddress peer = new PeerAddress("127.0.0.1", Integer.parseInt(ready[1]));
      int rkey = Integer.parseInt(ready[2]);
      long address = Long.parseLong(ready[3]);
      report
          .append("| state | threads | heap used MiB | direct MiB | descriptors |\n")
          .append("| --- | --- | --- | --- | --- |\n");
      row(report, "serving, no connection", stats(from, to));
      List<Socket> idle = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0." + (2 + i / 100)), 0));
        s.connect(peer.socketAddress(), 10_000);
        idle.add(s);
      }
      Thread.sleep(1000);
      row(report, "500 connections before their handshake", stats(from, to));
      for (Socket s : idle) {
        s.close();
      }
      Thread.sleep(1000);
      row(report, "after they closed", stats(from, to));
      RdmaConf conf =
          RdmaConf.of(BenchSettings.SCHEMA, Map.of("spark.shuffle.rdma.transport", "tcp"));
      try (Transport client =
              TransportSelector.standard()
                  .start(
                      conf,
                      ApplicationSecrets.of(APP, SECRET),
                      "127.0.0.1",
                      new TransportMetrics());
          BufferPool pool = new BufferPool(client.registrar(), 4096, 1 << 20, 64 << 20)) {
        List<ReadChannel> channels = new ArrayList<>();
        PooledBuffer b = pool.allocate(4096, 10, TimeUnit.SECONDS);
        for (int i = 0; i < 300; i++) {
          ReadChannel c = client.connect(peer, APP);
          channels.add(c);
          readOnce(c, address, rkey, b);
        }
        row(report, "300 authenticated READ connections, one READ each", stats(from, to));
        for (ReadChannel c : channels) {
          c.close();
        }
        b.release();
        Thread.sleep(1000);
        row(report, "after they closed", stats(from, to));
      }
    } finally {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    report.append(
        "\nHeap is measured after a full collection (`System.gc()`), so per-connection"
            + " figures are differences of a few MiB and approximate.\n");
    System.out.print(report);
    if (out != null) {
      Files.writeString(out, report);
      System.out.println("wrote " + out);
    }
    return 0;
  }

  private static void readOnce(ReadChannel c, long address, int rkey, PooledBuffer b)
      throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    TransportException[] failed = new TransportException[1];
    c.post(
        new ReadOp()
            .set(
                address,
                rkey,
                4096,
                b,
                0,
                new ReadListener() {
                  @Override
                  public void onReadComplete(ReadOp op) {
                    done.countDown();
                  }

                  @Override
                  public void onReadFailed(ReadOp op, TransportException cause) {
                    failed[0] = cause;
                    done.countDown();
                  }
                }));
    if (!done.await(60, TimeUnit.SECONDS) || failed[0] != null) {
      throw new IllegalStateException("a READ failed", failed[0]);
    }
  }

  private static String line(BufferedReader from, String prefix) throws IOException {
    String l;
    while ((l = from.readLine()) != null && !l.startsWith(prefix)) {
      // the serving JVM's log lines
    }
    if (l == null) {
      throw new IOException("the serving JVM ended");
    }
    return l;
  }

  private static long[] stats(BufferedReader from, OutputStream to) throws IOException {
    to.write("STATS\n".getBytes(StandardCharsets.US_ASCII));
    to.flush();
    String[] f = line(from, "STATS").split(" ");
    return new long[] {
      Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])
    };
  }

  private static void row(StringBuilder report, String state, long[] s) {
    report.append(
        String.format(
            "| %s | %d | %.1f | %.1f | %d |%n",
            state, s[0], s[1] / 1048576.0, s[2] / 1048576.0, s[3]));
  }

  /** The serving JVM: a tcp transport with one registered region; answers STATS lines. */
  private static void serve() throws Exception {
    RdmaConf conf =
        RdmaConf.of(BenchSettings.SCHEMA, Map.of("spark.shuffle.rdma.transport", "tcp"));
    Transport t =
        TransportSelector.standard()
            .start(conf, ApplicationSecrets.of(APP, SECRET), "127.0.0.1", new TransportMetrics());
    ByteBuffer memory = DirectMemory.allocate(1 << 20);
    RegisteredRegion r =
        t.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {});
    System.out.println("READY " + t.localAddress().port() + " " + r.rkey() + " " + r.address());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String l;
    while ((l = in.readLine()) != null) {
      if (l.equals("STATS")) {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        System.out.println(
            "STATS "
                + Thread.activeCount()
                + " "
                + (rt.totalMemory() - rt.freeMemory())
                + " "
                + direct()
                + " "
                + descriptors());
        System.out.flush();
      }
    }
  }

  private static long direct() {
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        return b.getMemoryUsed();
      }
    }
    return -1;
  }

  private static int descriptors() {
    String[] fds = new File("/proc/self/fd").list();
    return fds == null ? -1 : fds.length;
  }
}
