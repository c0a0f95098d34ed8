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
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Our verbs READ throughput and latency, measured the way perftest's {@code ib_read_bw} and {@code
 * ib_read_lat} measure theirs, so the two read as ratios in the same Soft-RoCE guest run ({@code
 * integration/softroce/verbs-benchmark.sh}): server transport on 198.18.100.1 (rxe0), reader on
 * 198.18.100.2 (rxe1); at 64 B, 4 KiB, 64 KiB and 1 MiB: bandwidth with 128 READs in flight
 * (perftest's default tx depth) moving as many messages as the baseline script does, in MB/s of
 * 2^20 bytes as perftest prints; latency of one READ at a time with the reader waiting as a fetch
 * task waits (it polls the completion queue itself for the transport's wait spin, {@link
 * ReadChannel#helpUntil}, then parks until the completion listener wakes it), typical (median) and
 * average in microseconds.
 *
 * <pre>VerbsReadBenchmark [--bw-mb 16] [--bw-max-iters 20000] [--lat-iters 2000] [--window 128]
 *     [--warmup-reads 30000] [--warmup-seconds 20] [--sizes 64,4096,65536,1048576]
 *     [--wait-spin-micros N] [--out FILE]</pre>
 *
 * <p>{@code --wait-spin-micros 0}: the reader never polls, it parks at once and the engine thread
 * finds its completion (as before readers polled).
 */
public final class VerbsReadBenchmark {
  private static final String APP = "bench";
  private static final byte[] SECRET =
      "verbs-bench-secret-0123456".getBytes(StandardCharsets.UTF_8);

  private VerbsReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int bwMb = 16;
    int bwMaxIters = 20_000;
    int latIters = 2000;
    int warmupReads = 30_000;
    int warmupSeconds = 20;
    int[] sizes = {64, 4096, 65536, 1048576};
    int window = 128;
    String out = null;
    String server = "198.18.100.1";
    String client = "198.18.100.2";
    String waitSpin = null; // the setting's default
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--bw-mb" -> bwMb = Integer.parseInt(args[++i]);
        case "--bw-max-iters" -> bwMaxIters = Integer.parseInt(args[++i]);
        case "--sizes" ->
            sizes = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--lat-iters" -> latIters = Integer.parseInt(args[++i]);
        case "--warmup-reads" -> warmupReads = Integer.parseInt(args[++i]);
        case "--warmup-seconds" -> warmupSeconds = Integer.parseInt(args[++i]);
        case "--window" -> window = Integer.parseInt(args[++i]);
        case "--out" -> out = args[++i];
        case "--server" -> server = args[++i];
        case "--client" -> client = args[++i];
        case "--wait-spin-micros" -> waitSpin = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Map<String, String> settings =
        new java.util.HashMap<>(
            Map.of(
                "spark.shuffle.rdma.transport", "verbs",
                "spark.shuffle.rdma.read.timeout", "120s",
                "spark.shuffle.rdma.connect.timeout", "120s",
                "spark.shuffle.rdma.read.maxOutstandingBytes", "2g",
                "spark.shuffle.rdma.buffers.maxBytes", "1g"));
    if (waitSpin != null) {
      settings.put("spark.shuffle.rdma.verbs.read.waitSpinMicros", waitSpin);
    }
    RdmaConf conf = RdmaConf.of(BenchSettings.SCHEMA, settings);
    List<String> lines = new ArrayList<>();
    try (Transport s = start(conf, server);
        Transport c = start(conf, client)) {
      ByteBuffer memory = DirectMemory.allocate(16 << 20);
      for (int i = 0; i < memory.capacity(); i++) {
        memory.put(i, (byte) i);
      }
      RegisteredRegion region =
          s.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {});
      BufferPool pool = new BufferPool(c.registrar(), 4096, 16 << 20, 1L << 30);
      try (ReadChannel ch = c.connect(s.localAddress(), APP)) {
        for (int size : sizes) {
          int iters = Math.max(10, (int) Math.min(bwMaxIters, (long) bwMb * 1048576 / size));
          // warm-up in batches of half the measured READs (see warmUp): in the emulated guest the
          // JIT compilers take seconds, and with one emulator thread they take them from the READs
          int batch = Math.max(iters / 2, 20);
          int inFlight = window;
          warmUp(
              warmupReads,
              warmupSeconds,
              batch,
              () -> bandwidth(ch, region, pool, size, batch, inFlight));
          double mbps = bandwidth(ch, region, pool, size, iters, window);
          lines.add("ours.read_bw." + size + ".iterations=" + iters);
          lines.add(String.format(Locale.ROOT, "ours.read_bw.%d.bw_avg_MBps=%.2f", size, mbps));
          System.out.printf(Locale.ROOT, "read bandwidth %8d bytes: %.2f MB/s%n", size, mbps);
        }
        // one READ at a time, the reader waiting as a shuffle fetch task waits (polling for the
        // wait spin, then parked until the listener wakes it); as many iterations as the
        // baseline script gives perftest (the key keeps its name: earlier results compare)
        for (int size : sizes) {
          int iters = (int) Math.max(20, Math.min(latIters, 16L * 1048576 / size));
          String key = "ours.read_lat_parked." + size + ".";
          warmUp(warmupReads, warmupSeconds, 50, () -> latency(ch, region, pool, size, 50, size));
          double[] lat = latency(ch, region, pool, size, iters, size);
          lines.add(key + "iterations=" + iters);
          lines.add(String.format(Locale.ROOT, "%st_typical_us=%.2f", key, lat[0]));
          lines.add(String.format(Locale.ROOT, "%st_avg_us=%.2f", key, lat[1]));
          lines.add(String.format(Locale.ROOT, "%st_min_us=%.2f", key, lat[2]));
          System.out.printf(
              Locale.ROOT,
              "read latency %8d bytes (parked): typical %.2f us, average %.2f us%n",
              size,
              lat[0],
              lat[1]);
        }
      } finally {
        region.close();
        pool.close();
      }
    }
    if (out != null) {
      Files.write(Paths.get(out), lines, StandardCharsets.UTF_8);
    }
    System.exit(0);
  }

  private static Transport start(RdmaConf conf, String host) throws Exception {
    return TransportSelector.standard()
        .start(conf, ApplicationSecrets.of(APP, SECRET), host, new TransportMetrics());
  }

  /** Keeps {@code window} READs of {@code size} in flight until {@code iters} completed. */
  static double bandwidth(
      ReadChannel ch, RegisteredRegion region, BufferPool pool, int size, int iters, int window)
      throws Exception {
    return bandwidth(
        ch, region.address(), region.rkey(), region.length(), pool, size, iters, window);
  }

  /**
   * {@link #bandwidth(ReadChannel, RegisteredRegion, BufferPool, int, int, int)} of a region known
   * by its address, rkey and length (another process's).
   */
  public static double bandwidth(
      ReadChannel ch,
      long address,
      int rkey,
      int length,
      BufferPool pool,
      int size,
      int iters,
      int window)
      throws Exception {
    int slots = Math.min(window, iters);
    List<PooledBuffer> buffers = new ArrayList<>();
    AtomicInteger posted = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(iters);
    AtomicReference<TransportException> failure = new AtomicReference<>();
    int spread = Math.max(1, length / size);
    ReadListener again =
        new ReadListener() {
          @Override
          public void onReadComplete(ReadOp op) {
            done.countDown();
            int i = posted.getAndIncrement();
            if (i < iters) {
              ch.post(
                  op.set(
                      address + (long) (i % spread) * size,
                      rkey,
                      size,
                      (PooledBuffer) op.attachment(),
                      0,
                      this));
            }
          }

          @Override
          public void onReadFailed(ReadOp op, TransportException e) {
            failure.compareAndSet(null, e);
            while (done.getCount() > 0) {
              done.countDown();
            }
          }
        };
    try {
      List<ReadOp> first = new ArrayList<>();
      for (int w = 0; w < slots; w++) {
        PooledBuffer b = pool.allocate(size, 10, TimeUnit.SECONDS);
        buffers.add(b);
        int i = posted.getAndIncrement();
        first.add(
            new ReadOp()
                .set(address + (long) (i % spread) * size, rkey, size, b, 0, again)
                .attach(b));
      }
      long t0 = System.nanoTime();
      ch.postAll(first);
      if (!done.await(30, TimeUnit.MINUTES)) {
        throw new IllegalStateException("READs did not finish");
      }
      long ns = System.nanoTime() - t0;
      if (failure.get() != null) {
        throw failure.get();
      }
      return (double) iters * size / 1048576.0 / (ns / 1e9);
    } finally {
      buffers.forEach(PooledBuffer::release);
    }
  }

  /** A batch of READs run for the warm-up. */
  private interface Batch {
    void run() throws Exception;
  }

  /**
   * Warm-up: {@code batch} (of {@code size} READs) again and again until {@code reads} READs were
   * done or {@code seconds} passed (once at least). HotSpot compiles a method with its optimising
   * compiler after some ten thousand calls, and the reader's wait (polling and delivering its own
   * completion) runs only in the latency runs: measured before that, the figures are the
   * interpreter's and the compiler's, which takes the emulator's only thread.
   */
  static void warmUp(int reads, int seconds, int size, Batch batch) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    for (int done = 0; done < reads; done += size) {
      batch.run();
      if (System.nanoTime() - deadline >= 0) {
        return;
      }
    }
  }

  /**
   * One READ of {@code size} at a time, the i-th at {@code (i * stride) % region length}; returns
   * typical (median), average and minimum in µs. The reader waits as a fetch task does: polls for
   * the transport's wait spin, then sleeps until the listener wakes it. Timed as {@code
   * ib_read_lat} times its READs: one clock read per READ, each READ's latency the time between its
   * end and the previous one's (two reads per READ would add a clock read to every figure, and in
   * an emulated guest a read costs a microsecond or more).
   */
  static double[] latency(
      ReadChannel ch, RegisteredRegion region, BufferPool pool, int size, int iters, int stride)
      throws Exception {
    return latency(ch, region.address(), region.rkey(), region.length(), pool, size, iters, stride);
  }

  /**
   * {@link #latency(ReadChannel, RegisteredRegion, BufferPool, int, int, int)} of a region known by
   * its address, rkey and length (another process's).
   */
  public static double[] latency(
      ReadChannel ch,
      long address,
      int rkey,
      int length,
      BufferPool pool,
      int size,
      int iters,
      int stride)
      throws Exception {
    Thread reader = Thread.currentThread();
    int spread = Math.max(1, length / stride);
    PooledBuffer b = pool.allocate(size, 10, TimeUnit.SECONDS);
    long[] ns = new long[iters];
    try {
      ReadOp op = new ReadOp();
      java.util.concurrent.atomic.AtomicBoolean done =
          new java.util.concurrent.atomic.AtomicBoolean();
      AtomicReference<TransportException> failure = new AtomicReference<>();
      ReadListener listener =
          new ReadListener() {
            @Override
            public void onReadComplete(ReadOp o) {
              done.set(true);
              LockSupport.unpark(reader);
            }

            @Override
            public void onReadFailed(ReadOp o, TransportException e) {
              failure.set(e);
              done.set(true);
              LockSupport.unpark(reader);
            }
          };
      long last = System.nanoTime();
      for (int i = 0; i < iters; i++) {
        op.set(address + (long) (i % spread) * stride, rkey, size, b, 0, listener);
        done.set(false);
        ch.post(op);
        ch.helpUntil(done::get, Long.MAX_VALUE);
        while (!done.get()) {
          LockSupport.park(done);
        }
        long now = System.nanoTime();
        ns[i] = now - last;
        last = now;
        if (failure.get() != null) {
          throw failure.get();
        }
      }
    } finally {
      b.release();
    }
    long[] sorted = ns.clone();
    Arrays.sort(sorted);
    double avg = Arrays.stream(ns).average().orElse(0) / 1000.0;
    return new double[] {sorted[sorted.length / 2] / 1000.0, avg, sorted[0] / 1000.0};
  }
}
