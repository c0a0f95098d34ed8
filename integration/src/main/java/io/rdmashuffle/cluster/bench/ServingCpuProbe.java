/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The runner's side of one run: polls the run's {@link Markers} and samples the CPU time of every
 * thread of the application's executors ({@link ThreadCpu}) when the driver says the job is about
 * to start ({@link Markers#READY}, acked after the sample), when the reduce stage was submitted
 * ({@link Markers#REDUCE_STARTED}) and when the job ended ({@link Markers#DONE}, acked after the
 * sample). The executors are this machine's processes (network namespaces share the process table),
 * found by their command line: {@code CoarseGrainedExecutorBackend ... --app-id <the id the driver
 * wrote>}.
 */
final class ServingCpuProbe implements Runnable {
  private static final String EXECUTOR_CLASS = "CoarseGrainedExecutorBackend";
  static final long LINK_SAMPLE_MILLIS = 100;

  private final Markers markers;
  private final int executors;
  private final StageTimeline.Recorder links;
  private volatile boolean stopped;
  private List<Long> pids = List.of();
  private final List<Map<Long, ThreadCpu.ThreadTime>> before = new ArrayList<>();
  private final List<Map<Long, ThreadCpu.ThreadTime>> mid = new ArrayList<>();
  private final List<Map<Long, ThreadCpu.ThreadTime>> after = new ArrayList<>();
  private final List<Long> processBefore = new ArrayList<>();
  private final List<Long> processMid = new ArrayList<>();
  private final List<Long> processAfter = new ArrayList<>();
  private volatile Sampled result;
  private volatile String error;

  /**
   * Serving threads' ticks over the job, by prefix; of those, the ticks spent before the reduce
   * stage was submitted (none expected: blocks are served to reduce tasks only); the serving
   * threads' nanoseconds on a CPU over the job from schedstat (-1 without); the executors' whole
   * CPU over the job, and from the reduce stage's submission to the job's end (-1 without); the
   * hosts' links from the reduce stage's submission to the job's end (null without); every thread's
   * ticks by {@link ThreadCpu#group} from the job's start to the reduce stage's submission and from
   * there to the job's end, summed over the executors (empty without).
   */
  record Sampled(
      List<Long> pids,
      Map<String, Long> servingTicks,
      long servingTicksBeforeReduce,
      long servingNanos,
      long executorTicks,
      long reduceExecutorTicks,
      StageTimeline links,
      Map<String, Long> threadsBeforeReduce,
      Map<String, Long> threadsOverReduce) {
    /** The executors' threads' ticks before the reduce stage, or over it. */
    Map<String, Long> threads(boolean beforeReduce) {
      return beforeReduce ? threadsBeforeReduce : threadsOverReduce;
    }

    /** The executors' threads' ticks per stage: {@code stage,thread,ticks} lines. */
    String threadsCsv() {
      StringBuilder csv = new StringBuilder("stage,thread,ticks\n");
      threadsBeforeReduce.forEach(
          (k, v) -> csv.append("map,").append(k).append(',').append(v).append('\n'));
      threadsOverReduce.forEach(
          (k, v) -> csv.append("reduce,").append(k).append(',').append(v).append('\n'));
      return csv.toString();
    }

    long servingTotal() {
      return servingTicks.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * @param links the {@code /sys/class/net} directories of the hosts' links (bridge side), sampled
   *     every {@link #LINK_SAMPLE_MILLIS} from the reduce stage's submission to the job's end
   */
  ServingCpuProbe(Path runDir, int executors, List<Path> links) {
    this.markers = new Markers(runDir);
    this.executors = executors;
    this.links = new StageTimeline.Recorder(links);
  }

  @Override
  public void run() {
    try {
      String ready = await(Markers.READY);
      if (ready == null) {
        return;
      }
      pids = executorPids(ready);
      if (pids.size() != executors) {
        error =
            "found "
                + pids.size()
                + " executor processes of "
                + ready
                + ", expected "
                + executors
                + ": "
                + pids;
        ackWhatComes(); // let the driver go on, to its end; the run is reported as failed
        return;
      }
      sample(before, processBefore);
      markers.ack(Markers.READY);
      while (!stopped && markers.get(Markers.DONE) == null) {
        if (mid.isEmpty() && markers.get(Markers.REDUCE_STARTED) != null) {
          links.sample(sample(mid, processMid));
        } else if (links.started()
            && System.currentTimeMillis() - links.lastMillis() >= LINK_SAMPLE_MILLIS) {
          links.sample(processTicks());
        }
        Thread.sleep(20);
      }
      if (stopped) {
        return;
      }
      links.sample(sample(after, processAfter));
      markers.ack(Markers.DONE);
      result = summarize();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      // an Error too: a probe thread that dies silently leaves the driver waiting for its ack
      error = e.toString();
      try {
        ackWhatComes(); // the driver must not wait for a sample that will not come
      } catch (InterruptedException i) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Acks the driver's markers as they come, until stopped: the run is reported as failed. */
  private void ackWhatComes() throws InterruptedException {
    while (!stopped) {
      for (String m : List.of(Markers.READY, Markers.DONE)) {
        if (markers.get(m) != null && markers.get(m + ".ack") == null) {
          markers.ack(m);
        }
      }
      Thread.sleep(20);
    }
  }

  private String await(String marker) throws InterruptedException {
    while (!stopped) {
      String v = markers.get(marker);
      if (v != null) {
        return v;
      }
      Thread.sleep(20);
    }
    return null;
  }

  /** The executors' CPU ticks so far, summed. */
  private long processTicks() {
    long ticks = 0;
    for (long pid : pids) {
      ticks += ThreadCpu.processTicks(pid);
    }
    return ticks;
  }

  /** Samples every executor's threads into {@code into} and its own ticks; returns their sum. */
  private long sample(List<Map<Long, ThreadCpu.ThreadTime>> into, List<Long> processTicks) {
    long ticks = 0;
    for (long pid : pids) {
      into.add(ThreadCpu.sample(pid));
      long t = ThreadCpu.processTicks(pid);
      processTicks.add(t);
      ticks += t;
    }
    return ticks;
  }

  private Sampled summarize() {
    Map<String, Long> serving = new TreeMap<>();
    Map<String, Long> threadsBeforeReduce = new TreeMap<>();
    Map<String, Long> threadsOverReduce = new TreeMap<>();
    long beforeReduce = 0;
    long nanos = 0;
    for (int i = 0; i < pids.size(); i++) {
      long n = ThreadCpu.servingNanos(before.get(i), after.get(i));
      nanos = n < 0 || nanos < 0 ? -1 : nanos + n;
      ThreadCpu.servingTicks(before.get(i), after.get(i))
          .forEach((k, v) -> serving.merge(k, v, Long::sum));
      if (!mid.isEmpty()) {
        ThreadCpu.ticksByName(before.get(i), mid.get(i), processMid.get(i) - processBefore.get(i))
            .forEach((k, v) -> threadsBeforeReduce.merge(k, v, Long::sum));
        ThreadCpu.ticksByName(mid.get(i), after.get(i), processAfter.get(i) - processMid.get(i))
            .forEach((k, v) -> threadsOverReduce.merge(k, v, Long::sum));
        beforeReduce +=
            ThreadCpu.servingTicks(before.get(i), mid.get(i)).values().stream()
                .mapToLong(Long::longValue)
                .sum();
      }
    }
    return new Sampled(
        pids,
        serving,
        mid.isEmpty() ? -1 : beforeReduce,
        nanos,
        sum(processAfter) - sum(processBefore),
        processMid.isEmpty() ? -1 : sum(processAfter) - sum(processMid),
        links.started() ? links.timeline() : null,
        threadsBeforeReduce,
        threadsOverReduce);
  }

  private static long sum(List<Long> ticks) {
    return ticks.stream().mapToLong(Long::longValue).sum();
  }

  /** Stops polling (the driver ended). */
  void stop() {
    stopped = true;
  }

  /** The samples' summary, or null when the run was not sampled through (see {@link #error}). */
  Sampled result() {
    return result;
  }

  String error() {
    return error != null ? error : result == null ? "the job's end was never sampled" : null;
  }

  /**
   * Processes whose command line runs an executor of application {@code appId}, less those whose
   * parent is one of them: a process an executor forks has its command line until it executes
   * another program (one such was once counted as a fifth executor of four, and the run failed).
   */
  static List<Long> executorPids(String appId) {
    Map<Long, Long> parents = new TreeMap<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path p : ds) {
        String cmd;
        try {
          cmd =
              new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                  .replace('\0', ' ');
        } catch (IOException ended) {
          continue;
        }
        // the JVM itself, not a wrapper that would name the same arguments
        if (cmd.split(" ", 2)[0].endsWith("/java")
            && cmd.contains(EXECUTOR_CLASS)
            && cmd.contains(" --app-id " + appId + " ")) {
          try {
            parents.put(
                Long.parseLong(p.getFileName().toString()),
                ThreadCpu.parentPid(Files.readString(p.resolve("stat"))));
          } catch (IOException ended) {
            // ended meanwhile: not an executor of this run's job
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return withoutChildren(parents);
  }

  /** The processes (by pid, their parent's pid) whose parent is not among them, in order. */
  static List<Long> withoutChildren(Map<Long, Long> parents) {
    List<Long> found = new ArrayList<>();
    parents.forEach(
        (pid, parent) -> {
          if (!parents.containsKey(parent)) {
            found.add(pid);
          }
        });
    found.sort(null);
    return found;
  }
}
