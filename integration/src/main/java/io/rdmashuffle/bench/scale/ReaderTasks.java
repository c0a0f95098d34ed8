/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import io.rdmashuffle.fetch.Block;
import io.rdmashuffle.fetch.BlockFetchException;
import io.rdmashuffle.fetch.BlockFetcher;
import io.rdmashuffle.fetch.BlockSource;
import io.rdmashuffle.fetch.FetchOptions;
import io.rdmashuffle.fetch.Owner;
import io.rdmashuffle.fetch.ReadCounter;
import io.rdmashuffle.fetch.ReadCounters;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.tools.Progress;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reduce tasks of one reading process ({@link ScaleReader}): task {@code t} reads partitions
 * {@code [t * width, (t + 1) * width)} of every map output with blocks there; this process runs
 * every {@code of}-th task from its {@code share}-th, on {@code slots} threads, each task through
 * its own {@link BlockFetcher}, its blocks read whole (and compared with the files when asked).
 */
final class ReaderTasks {
  /** One task: partitions {@code [first, end)}, and how many blocks it reads. */
  private record Task(int first, int end, long blocks) {}

  private final ScaleReader.Plan plan;
  private final NodeRuntime runtime;
  private final FetchOptions options;
  private final ExpectedBlocks expected;
  private final ScaleManifest manifest;
  private final ReadCounters counters = new ReadCounters();
  private final List<Task> tasks = new ArrayList<>();

  /** Per partition, the outputs (indexes into the manifest) with a block there, ascending. */
  private final int[][] outputsOf;

  /** Per output, who serves it. */
  private final Owner[] owners;

  private final AtomicLong blocks = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong mismatches = new AtomicLong();
  private final AtomicInteger failedTasks = new AtomicInteger();
  private final AtomicInteger doneTasks = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
  private final java.util.Set<BlockFetcher> fetchers =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** A timed run ended: fetchers closed under their tasks are not failures. */
  private volatile boolean stopping;

  ReaderTasks(
      ScaleManifest m,
      ScaleReader.Plan plan,
      NodeRuntime runtime,
      FetchOptions options,
      ExpectedBlocks expected) {
    this.plan = plan;
    this.runtime = runtime;
    this.options = options;
    this.expected = expected;
    this.manifest = m;
    int[] count = new int[m.partitions()];
    for (ScaleManifest.MapOutput o : m.outputs()) {
      for (int p : o.partitions()) {
        count[p]++;
      }
    }
    outputsOf = new int[m.partitions()][];
    for (int p = 0; p < count.length; p++) {
      outputsOf[p] = new int[count[p]];
    }
    int[] filled = new int[m.partitions()];
    owners = new Owner[m.outputs().size()];
    Map<String, Owner> byMarker = new HashMap<>();
    for (int o = 0; o < m.outputs().size(); o++) {
      ScaleManifest.MapOutput out = m.outputs().get(o);
      for (int p : out.partitions()) {
        outputsOf[p][filled[p]++] = o;
      }
      owners[o] =
          byMarker.computeIfAbsent(
              out.marker(),
              text -> {
                OwnerMarker mk = OwnerMarker.parse(text);
                return new Owner(mk.address(), mk.address().host().equals(plan.host()), false);
              });
    }
    int w = plan.width();
    for (int t = 0, first = 0; first < m.partitions(); t++, first += w) {
      int end = Math.min(m.partitions(), first + w);
      long n = 0;
      for (int p = first; p < end; p++) {
        n += outputsOf[p].length;
      }
      if (t % plan.of() == plan.share() && n > 0) {
        tasks.add(new Task(first, end, n));
      }
    }
  }

  /** The sources of a task: each output with blocks in its partitions, those partitions. */
  private List<BlockSource> sources(Task task) {
    Map<Integer, List<Integer>> wanted = new java.util.TreeMap<>();
    for (int p = task.first(); p < task.end(); p++) {
      for (int o : outputsOf[p]) {
        wanted.computeIfAbsent(o, k -> new ArrayList<>()).add(p);
      }
    }
    List<BlockSource> sources = new ArrayList<>(wanted.size());
    for (Map.Entry<Integer, List<Integer>> e : wanted.entrySet()) {
      int[] ps = e.getValue().stream().mapToInt(Integer::intValue).toArray();
      sources.add(
          new BlockSource(
              owners[e.getKey()],
              manifest.shuffle(),
              manifest.outputs().get(e.getKey()).map(),
              ps,
              null));
    }
    return sources;
  }

  int size() {
    return tasks.size();
  }

  /**
   * Runs every task, {@code slots} at once, and returns when all ended; with a duration, runs them
   * over and over until it passed (then closes the fetchers still reading), marking the measured
   * window.
   */
  ReaderResults run() throws InterruptedException {
    boolean timed = plan.duration() > 0;
    ConcurrentLinkedQueue<Task> queue = new ConcurrentLinkedQueue<>(tasks);
    AtomicLong turn = new AtomicLong();
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    int n = timed ? plan.slots() : Math.min(plan.slots(), tasks.size());
    for (int i = 0; i < n && !tasks.isEmpty(); i++) {
      Thread t =
          new Thread(
              () -> {
                Task task;
                while (!stopping
                    && (task =
                            timed
                                ? tasks.get((int) (turn.getAndIncrement() % tasks.size()))
                                : queue.poll())
                        != null) {
                  runOne(task);
                }
              },
              "scale-reader-" + i);
      t.start();
      threads.add(t);
    }
    Map<String, Long> window = new java.util.LinkedHashMap<>();
    if (timed) {
      sleepUntil(t0, plan.warmup());
      Map<String, Long> start = mark("start", t0);
      sleepUntil(t0, plan.duration());
      Map<String, Long> end = mark("end", t0);
      end.forEach((k, v) -> window.put("window." + k, v - start.getOrDefault(k, 0L)));
      stopping = true;
      for (BlockFetcher f : fetchers) {
        f.close();
      }
    }
    Progress progress =
        plan.progress()
            ? Progress.onStderr(java.util.Collections.nCopies(tasks.size(), "task"))
            : null;
    for (Thread t : threads) {
      while (t.isAlive()) {
        t.join(5_000);
        if (progress != null) {
          progressLine(progress, t0);
        }
      }
    }
    if (progress != null) {
      progress.finish();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Map<String, Long> all = new java.util.LinkedHashMap<>(counters.snapshot());
    all.putAll(window);
    return new ReaderResults(
        timed ? doneTasks.get() : tasks.size(),
        failedTasks.get(),
        timed ? blocks.get() : tasks.stream().mapToLong(Task::blocks).sum(),
        blocks.get(),
        bytes.get(),
        mismatches.get(),
        maxRunning.get(),
        seconds,
        all,
        List.copyOf(failures));
  }

  private static void sleepUntil(long t0, double seconds) throws InterruptedException {
    long left = t0 + (long) (seconds * 1e9) - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
    }
  }

  /**
   * The counters now, printed as {@code MARK <what> t=... blocks=... bytes=... locates=...
   * reads=...} on standard output for whoever measures the other side at the same moment.
   */
  private Map<String, Long> mark(String what, long t0) {
    Map<String, Long> m = new java.util.LinkedHashMap<>();
    m.put("micros", (System.nanoTime() - t0) / 1000);
    m.put("blocks", blocks.get());
    m.put("bytes", bytes.get());
    m.put("locates", counters.value(ReadCounter.LOCATES));
    m.put("reads", runtime.metrics().readsCompleted());
    StringBuilder line = new StringBuilder("MARK " + what);
    m.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
    System.out.println(line);
    System.out.flush();
    return m;
  }

  private void progressLine(Progress progress, long t0) {
    int done = doneTasks.get();
    while (progress.done() < done) {
      progress.record("task", (System.nanoTime() - t0) / 1e9 / Math.max(1, done));
    }
    progress.print(
        progress.status(
            "tasks done, " + running.get() + " running, " + blocks.get() + " blocks",
            System.nanoTime(),
            0));
  }

  private void runOne(Task task) {
    int now = running.incrementAndGet();
    maxRunning.accumulateAndGet(now, Math::max);
    BlockFetcher f =
        new BlockFetcher(
            manifest.application(),
            runtime.locatorClient(),
            null,
            runtime.connections(),
            runtime.buffers(),
            options,
            counters,
            runtime.fetchDriver(),
            () -> {});
    fetchers.add(f);
    try (f) {
      if (stopping) {
        return;
      }
      for (BlockSource s : sources(task)) {
        f.add(s);
      }
      f.start();
      Block b;
      while ((b = f.next()) != null) {
        byte[] got;
        try (InputStream in = b.stream()) {
          got = in.readAllBytes();
        }
        blocks.incrementAndGet();
        bytes.addAndGet(got.length);
        if (expected != null) {
          byte[] want = expected.block(b.source().map(), b.partition());
          if (!Arrays.equals(got, want)) {
            mismatches.incrementAndGet();
            failure(
                task,
                "block "
                    + b.partition()
                    + " of map output "
                    + b.source().map()
                    + ": "
                    + got.length
                    + " bytes READ differ from the file's "
                    + want.length);
          }
        }
      }
    } catch (BlockFetchException e) {
      failed(task, e.kind() + ": " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      failed(task, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failed(task, "interrupted");
    } finally {
      fetchers.remove(f);
      running.decrementAndGet();
      if (!stopping) {
        doneTasks.incrementAndGet();
      }
    }
  }

  /** A task failed, unless a timed run closed its fetcher under it. */
  private void failed(Task task, String what) {
    if (!stopping) {
      failedTasks.incrementAndGet();
      failure(task, what);
    }
  }

  private void failure(Task task, String what) {
    if (failures.size() < 20) {
      failures.add("task at partition " + task.first() + ": " + what);
    }
  }
}
