/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A separate process that serves one registered region, for tests that kill or flood the serving
 * side: {@code ServingProcess <transport> <host> <application> <secret> <bytes> <seed> [key=value
 * ...]} (extra settings in Spark style). Prints {@code READY <port> <rkey> <address> <length>} when
 * serving, then serves until killed; it also answers calls of service {@value #ANSWER_64K} with 64
 * KiB. Each {@code STATS} line on its standard input is answered with {@code STATS <live threads>
 * <direct memory bytes> <open descriptors> <heap bytes used>}, after a garbage collection (so what
 * nothing references is counted as freed).
 */
public final class ServingProcess {
  /** The call service that answers 64 KiB. */
  public static final int ANSWER_64K = 101;

  private ServingProcess() {}

  public static void main(String[] args) throws Exception {
    String transport = args[0];
    String host = args[1];
    String app = args[2];
    byte[] secret = args[3].getBytes(StandardCharsets.UTF_8);
    int bytes = Integer.parseInt(args[4]);
    int seed = Integer.parseInt(args[5]);
    Map<String, String> settings = new HashMap<>();
    settings.put("spark.shuffle.rdma.transport", transport);
    for (int i = 6; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    RdmaConf conf = RdmaConf.of(TestSchema.SPARK_KEYS, settings);
    Transport t =
        TransportSelector.standard()
            .start(conf, ApplicationSecrets.of(app, secret), host, new TransportMetrics());
    t.serveCalls(ANSWER_64K, (caller, request) -> ByteBuffer.allocate(64 << 10));
    ByteBuffer memory = DirectMemory.allocate(bytes);
    Patterns.fill(memory, 0, seed);
    RegisteredRegion r =
        t.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, app, () -> {});
    System.out.println(
        "READY " + t.localAddress().port() + " " + r.rkey() + " " + r.address() + " " + r.length());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.equals("STATS")) {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        System.out.println(
            "STATS "
                + Thread.activeCount()
                + " "
                + directBytes()
                + " "
                + FileDescriptors.open()
                + " "
                + (rt.totalMemory() - rt.freeMemory()));
        System.out.flush();
      }
    }
    Thread.sleep(Long.MAX_VALUE);
  }

  private static long directBytes() {
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        return b.getMemoryUsed();
      }
    }
    return -1;
  }
}
