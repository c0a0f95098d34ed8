/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.bench.VerbsReadBenchmark;
import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The two halves of qualify's own READ test, each run on its host by the driver: a server that
 * registers a region of known bytes with the verbs transport (as the serving side registers map
 * outputs, with the configured {@code verbs.registration}) and says where it is, and a reader on
 * another host that connects through RDMA-CM, checks the bytes of READs at offsets inside a page,
 * across pages and across packets, then measures bandwidth (128 READs in flight) and latency (one
 * at a time, waiting as a fetch task waits) per size, as {@code VerbsReadBenchmark} does in the
 * guest.
 */
final class ReadAgent {
  static final String APP = "qualify";
  static final int REGION = 16 << 20;

  private ReadAgent() {}

  /** Settings under Spark's prefix, verbs forced, connect and READ timeouts of a step's. */
  static RdmaConf conf(Map<String, String> settings, long timeoutSeconds) {
    Map<String, String> m = new HashMap<>(settings);
    m.put("spark.shuffle.rdma.transport", "verbs");
    m.putIfAbsent("spark.shuffle.rdma.read.timeout", timeoutSeconds + "s");
    m.putIfAbsent("spark.shuffle.rdma.connect.timeout", timeoutSeconds + "s");
    m.putIfAbsent("spark.shuffle.rdma.buffers.maxBytes", "64m");
    m.putIfAbsent("spark.shuffle.rdma.serve.maxPinnedBytes", "64m");
    return RdmaConf.of(ConfigSchema.core("qualify", "spark.shuffle.rdma."), m);
  }

  static Transport start(RdmaConf conf, String host, byte[] secret) throws Exception {
    return TransportSelector.standard()
        .start(conf, ApplicationSecrets.of(APP, secret), host, new TransportMetrics());
  }

  /**
   * Serves a region at {@code host}: prints {@code ready HOST PORT ADDRESS RKEY LENGTH PINNED} and
   * keeps it until standard input ends (the driver closes it).
   */
  static int serve(RdmaConf conf, String host, String secretHex, PrintStream out) throws Exception {
    byte[] secret = HexFormat.of().parseHex(secretHex);
    try (Transport t = start(conf, host, secret)) {
      ByteBuffer memory = DirectMemory.allocate(REGION);
      Pattern.fill(memory);
      RegisteredRegion r =
          t.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {});
      try {
        PeerAddress a = t.localAddress();
        out.printf(
            Locale.ROOT,
            "ready %s %d %d %d %d %s%n",
            a.host(),
            a.port(),
            r.address(),
            r.rkey(),
            r.length(),
            t.registrar().pinsMemory() ? "pinned" : "on-demand");
        out.flush();
        while (System.in.read() >= 0) {
          // until the driver closes standard input
        }
      } finally {
        r.close();
      }
    }
    return 0;
  }

  /** What the reader measured: properties lines on standard output. */
  static int read(
      RdmaConf conf,
      String host,
      String secretHex,
      PeerAddress server,
      long address,
      int rkey,
      int length,
      List<Integer> sizes,
      int iterations,
      PrintStream out)
      throws Exception {
    byte[] secret = HexFormat.of().parseHex(secretHex);
    try (Transport t = start(conf, host, secret);
        ReadChannel ch = t.connect(server, APP)) {
      BufferPool pool = new BufferPool(t.registrar(), 4096, 16 << 20, 48L << 20);
      try {
        String wrong = verify(ch, pool, address, rkey, length);
        out.println("verify=" + (wrong == null ? "ok" : wrong));
        if (wrong != null) {
          return 1;
        }
        for (int size : sizes) {
          int n = Math.max(10, iterations);
          VerbsReadBenchmark.bandwidth(
              ch, address, rkey, length, pool, size, Math.max(10, n / 4), 128);
          double mbps = VerbsReadBenchmark.bandwidth(ch, address, rkey, length, pool, size, n, 128);
          double[] lat = VerbsReadBenchmark.latency(ch, address, rkey, length, pool, size, n, size);
          out.printf(Locale.ROOT, "bw.%d=%.2f%n", size, mbps);
          out.printf(Locale.ROOT, "lat.%d=%.2f%n", size, lat[0]);
        }
      } finally {
        pool.close();
      }
    }
    return 0;
  }

  /**
   * READs ranges that catch an on-demand copy that ignores offsets: inside a page at an offset,
   * across a page boundary, across packets, from the region's start; null when every byte is right.
   */
  static String verify(ReadChannel ch, BufferPool pool, long address, int rkey, int length)
      throws Exception {
    long[][] ranges = {{0, 4096}, {4096 + 100, 64}, {4096 - 50, 100}, {65536 - 300, 5000}};
    for (long[] r : ranges) {
      int len = (int) Math.min(r[1], length - r[0]);
      PooledBuffer b = pool.allocate(len, 10, TimeUnit.SECONDS);
      try {
        readOnce(ch, address + r[0], rkey, len, b);
        long bad = Pattern.firstWrong(b.buffer(), len, r[0]);
        if (bad >= 0) {
          return String.format(
              Locale.ROOT,
              "a READ of %d bytes at offset %d returned wrong bytes from byte %d on",
              len,
              r[0],
              bad);
        }
      } finally {
        b.release();
      }
    }
    return null;
  }

  private static void readOnce(ReadChannel ch, long address, int rkey, int len, PooledBuffer b)
      throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    AtomicReference<TransportException> failed = new AtomicReference<>();
    ch.post(
        new ReadOp()
            .set(
                address,
                rkey,
                len,
                b,
                0,
                new ReadListener() {
                  @Override
                  public void onReadComplete(ReadOp op) {
                    done.countDown();
                  }

                  @Override
                  public void onReadFailed(ReadOp op, TransportException e) {
                    failed.set(e);
                    done.countDown();
                  }
                }));
    if (!done.await(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("a READ got no completion in 120 s");
    }
    if (failed.get() != null) {
      throw failed.get();
    }
  }

  static String hexSecret() {
    byte[] s = new byte[32];
    new java.security.SecureRandom().nextBytes(s);
    return HexFormat.of().formatHex(s);
  }
}
