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
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Served memory registered pinned against on-demand paging, on the Soft-RoCE devices of a guest
 * whose rxe has ODP ({@code integration/softroce/verbs-benchmark.sh} runs it only there): how fast
 * each registers (GB/s of 64 MiB regions, registered and deregistered), what the first READ of a
 * page costs in an on-demand region not prefetched, prefetched ({@code ibv_advise_mr}) and pinned
 * (4 KiB READs, each of a page not read before), READ bandwidth from each (64 KiB and 1 MiB, 128 in
 * flight), and the bytes the serving side holds pinned and on demand for the region. Server
 * transports on 198.18.100.1 (one pinned, one on demand), reader on 198.18.100.2.
 *
 * <pre>VerbsRegistrationBenchmark [--regions 16] [--pages 200] [--out FILE]</pre>
 */
public final class VerbsRegistrationBenchmark {
  private static final String APP = "bench";
  private static final byte[] SECRET =
      "verbs-bench-secret-0123456".getBytes(StandardCharsets.UTF_8);
  private static final int REGION = 64 << 20;
  private static final int PAGE = 4096;

  private VerbsRegistrationBenchmark() {}

  public static void main(String[] args) throws Exception {
    int regions = 16;
    int pages = 200;
    String out = null;
    String server = "198.18.100.1";
    String client = "198.18.100.2";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--regions" -> regions = Integer.parseInt(args[++i]);
        case "--pages" -> pages = Integer.parseInt(args[++i]);
        case "--out" -> out = args[++i];
        case "--server" -> server = args[++i];
        case "--client" -> client = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    List<String> lines = new ArrayList<>();
    try (Transport pinned = start(server, "pinned");
        Transport odp = start(server, "odp");
        Transport reader = start(client, "pinned")) {
      ByteBuffer memory = DirectMemory.allocate(REGION);
      for (int i = 0; i < REGION; i += PAGE) {
        memory.put(i, (byte) i); // resident in this process; the device's view is the question
      }
      lines.add(fmt("reg.pinned.register_GBps", registerRate(pinned, memory, regions)));
      lines.add(fmt("reg.odp.register_GBps", registerRate(odp, memory, regions)));
      BufferPool pool = new BufferPool(reader.registrar(), 4096, 16 << 20, 1L << 30);
      try {
        for (String kind : new String[] {"pinned", "odp_cold", "odp_prefetched"}) {
          Transport serving = kind.equals("pinned") ? pinned : odp;
          RegisteredRegion r =
              serving
                  .registrar()
                  .register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {});
          // what the serving side holds for the region: pinned against on-demand bytes
          lines.add("bytes." + kind + ".pinned=" + serving.registrar().accounting().pinnedBytes());
          lines.add(
              "bytes." + kind + ".onDemand=" + serving.registrar().accounting().onDemandBytes());
          try (ReadChannel ch = reader.connect(serving.localAddress(), APP)) {
            if (kind.equals("odp_prefetched")) {
              // registration prefetches a served region already; ask again, then let it finish
              serving.registrar().prefetch(r, 0, REGION);
              Thread.sleep(200);
            }
            double[] lat = firstReads(ch, r, pool, pages);
            lines.add(fmt("first_read." + kind + ".t_typical_us", lat[0]));
            lines.add(fmt("first_read." + kind + ".t_avg_us", lat[1]));
            if (!kind.equals("odp_cold")) {
              String mode = kind.equals("pinned") ? "pinned" : "odp";
              for (int size : new int[] {65536, 1048576}) {
                int iters = Math.max(20, (int) (64L * 1048576 / size));
                VerbsReadBenchmark.bandwidth(ch, r, pool, size, iters / 2, 128);
                lines.add(
                    fmt(
                        "read_bw." + mode + "." + size + ".bw_avg_MBps",
                        VerbsReadBenchmark.bandwidth(ch, r, pool, size, iters, 128)));
              }
            }
          } finally {
            r.close();
          }
        }
      } finally {
        pool.close();
      }
      lines.add("reg.odp.onDemandBytes.after=" + odp.registrar().accounting().onDemandBytes());
    }
    lines.forEach(System.out::println);
    if (out != null) {
      Files.write(Paths.get(out), lines, StandardCharsets.UTF_8);
    }
    System.exit(0);
  }

  private static String fmt(String key, double v) {
    return String.format(Locale.ROOT, "%s=%.2f", key, v);
  }

  private static Transport start(String host, String registration) throws Exception {
    Map<String, String> settings =
        new HashMap<>(
            Map.of(
                "spark.shuffle.rdma.transport", "verbs",
                "spark.shuffle.rdma.read.timeout", "120s",
                "spark.shuffle.rdma.connect.timeout", "120s",
                "spark.shuffle.rdma.read.maxOutstandingBytes", "2g",
                "spark.shuffle.rdma.buffers.maxBytes", "1g",
                "spark.shuffle.rdma.verbs.registration", registration));
    return TransportSelector.standard()
        .start(
            RdmaConf.of(BenchSettings.SCHEMA, settings),
            ApplicationSecrets.of(APP, SECRET),
            host,
            new TransportMetrics());
  }

  /** Registers and deregisters {@code count} times the memory; GB (10^9 bytes) per second. */
  private static double registerRate(Transport t, ByteBuffer memory, int count) throws Exception {
    long t0 = System.nanoTime();
    for (int i = 0; i < count; i++) {
      t.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {}).close();
    }
    long ns = System.nanoTime() - t0;
    return (double) count * memory.capacity() / ns;
  }

  /** One 4 KiB READ at a time, each of a page not read before (spread over the region). */
  private static double[] firstReads(ReadChannel ch, RegisteredRegion r, BufferPool pool, int pages)
      throws Exception {
    int stride = Math.max(1, REGION / PAGE / pages) * PAGE;
    return VerbsReadBenchmark.latency(ch, r, pool, PAGE, pages, stride);
  }
}
