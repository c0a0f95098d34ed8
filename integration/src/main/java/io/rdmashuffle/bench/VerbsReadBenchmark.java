package io.rdmashuffle.bench;

import io.rdmashuffle.config.KeyStyle;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.TransportSelector;
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
 * Our verbs READ throughput and latency, measured the way perftest's {@code ib_read_bw} and
 * {@code ib_read_lat} measure theirs, so the two read as ratios in the same Soft-RoCE guest run
 * ({@code integration/softroce/verbs-benchmark.sh}): server transport on 10.77.0.1 (rxe0),
 * reader on 10.77.0.2 (rxe1); bandwidth with 128 READs in flight (perftest's default tx depth)
 * moving the same number of bytes per message size, in MB/s of 2^20 bytes as perftest prints;
 * latency of one 64-byte READ at a time, typical (median) and average in microseconds.
 *
 * <pre>VerbsReadBenchmark [--bw-mb 128] [--lat-iters 5000] [--window 128] [--out FILE]</pre>
 */
public final class VerbsReadBenchmark {
  private static final String APP = "bench";
  private static final byte[] SECRET = "verbs-bench-secret-0123456".getBytes(StandardCharsets.UTF_8);

  private VerbsReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int bwMb = 128;
    int latIters = 5000;
    int window = 128;
    String out = null;
    String server = "10.77.0.1";
    String client = "10.77.0.2";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--bw-mb" -> bwMb = Integer.parseInt(args[++i]);
        case "--lat-iters" -> latIters = Integer.parseInt(args[++i]);
        case "--window" -> window = Integer.parseInt(args[++i]);
        case "--out" -> out = args[++i];
        case "--server" -> server = args[++i];
        case "--client" -> client = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    RdmaConf conf = RdmaConf.of(KeyStyle.SPARK, Map.of(
        "spark.shuffle.rdma.transport", "verbs",
        "spark.shuffle.rdma.read.timeout", "120s",
        "spark.shuffle.rdma.connect.timeout", "120s",
        "spark.shuffle.rdma.read.maxOutstandingBytes", "2g",
        "spark.shuffle.rdma.buffers.maxBytes", "1g"));
    List<String> lines = new ArrayList<>();
    try (Transport s = start(conf, server); Transport c = start(conf, client)) {
      ByteBuffer memory = DirectMemory.allocate(16 << 20);
      for (int i = 0; i < memory.capacity(); i++) {
        memory.put(i, (byte) i);
      }
      RegisteredRegion region =
          s.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> { });
      BufferPool pool = new BufferPool(c.registrar(), 4096, 16 << 20, 1L << 30);
      try (ReadChannel ch = c.connect(s.localAddress(), APP)) {
        for (int size : new int[] {65536, 1048576}) {
          int iters = Math.max(10, (int) ((long) bwMb * 1048576 / size));
          // warm-up of half the measured READs: in the emulated guest the JIT compilers take
          // seconds, and with one emulator thread they take them from the READs measured
          bandwidth(ch, region, pool, size, Math.max(iters / 2, 20), window);
          double mbps = bandwidth(ch, region, pool, size, iters, window);
          lines.add("ours.read_bw." + size + ".iterations=" + iters);
          lines.add(String.format(Locale.ROOT, "ours.read_bw.%d.bw_avg_MBps=%.2f", size, mbps));
          System.out.printf(Locale.ROOT, "read bandwidth %8d bytes: %.2f MB/s%n", size, mbps);
        }
        // polling (as ib_read_lat does) and parked until the completion callback wakes the
        // reader (as a shuffle fetch waits)
        for (boolean park : new boolean[] {false, true}) {
          String key = park ? "ours.read_lat_parked.64." : "ours.read_lat.64.";
          latency(ch, region, pool, Math.min(1000, latIters), park); // warm-up
          double[] lat = latency(ch, region, pool, latIters, park);
          lines.add(key + "iterations=" + latIters);
          lines.add(String.format(Locale.ROOT, "%st_typical_us=%.2f", key, lat[0]));
          lines.add(String.format(Locale.ROOT, "%st_avg_us=%.2f", key, lat[1]));
          lines.add(String.format(Locale.ROOT, "%st_min_us=%.2f", key, lat[2]));
          System.out.printf(Locale.ROOT,
              "read latency 64 bytes%s: typical %.2f us, average %.2f us%n",
              park ? " (parked)" : "", lat[0], lat[1]);
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
    return TransportSelector.standard().start(new TransportContext(
        conf, ApplicationSecrets.of(APP, SECRET), host, new TransportMetrics()));
  }

  /** Keeps {@code window} READs of {@code size} in flight until {@code iters} completed. */
  private static double bandwidth(ReadChannel ch, RegisteredRegion region, BufferPool pool,
      int size, int iters, int window) throws Exception {
    int slots = Math.min(window, iters);
    List<PooledBuffer> buffers = new ArrayList<>();
    AtomicInteger posted = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(iters);
    AtomicReference<TransportException> failure = new AtomicReference<>();
    int spread = Math.max(1, region.length() / size);
    ReadListener again = new ReadListener() {
      @Override public void onReadComplete(ReadOp op) {
        done.countDown();
        int i = posted.getAndIncrement();
        if (i < iters) {
          ch.post(op.set(region.address() + (long) (i % spread) * size, region.rkey(), size,
              (PooledBuffer) op.attachment(), 0, this));
        }
      }

      @Override public void onReadFailed(ReadOp op, TransportException e) {
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
        first.add(new ReadOp().set(region.address() + (long) (i % spread) * size, region.rkey(),
            size, b, 0, again).attach(b));
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

  /**
   * One 64-byte READ at a time; returns typical (median), average and minimum in µs. The reader
   * polls for the completion, yielding, or with {@code park} sleeps until the listener wakes it.
   */
  private static double[] latency(ReadChannel ch, RegisteredRegion region, BufferPool pool,
      int iters, boolean park) throws Exception {
    Thread reader = Thread.currentThread();
    PooledBuffer b = pool.allocate(64, 10, TimeUnit.SECONDS);
    long[] ns = new long[iters];
    try {
      ReadOp op = new ReadOp();
      java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
      AtomicReference<TransportException> failure = new AtomicReference<>();
      ReadListener listener = new ReadListener() {
        @Override public void onReadComplete(ReadOp o) {
          done.set(true);
          if (park) {
            LockSupport.unpark(reader);
          }
        }

        @Override public void onReadFailed(ReadOp o, TransportException e) {
          failure.set(e);
          done.set(true);
          if (park) {
            LockSupport.unpark(reader);
          }
        }
      };
      for (int i = 0; i < iters; i++) {
        op.set(region.address() + (i % 1024) * 64L, region.rkey(), 64, b, 0, listener);
        done.set(false);
        long t0 = System.nanoTime();
        ch.post(op);
        // polling as ib_read_lat does, but yielding: in the emulated guest the kernel that moves
        // the bytes needs the CPU a spinning thread would take; or parked until the listener
        // wakes the reader
        while (!done.get()) {
          if (park) {
            LockSupport.park(done);
          } else {
            Thread.yield();
          }
        }
        ns[i] = System.nanoTime() - t0;
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
