/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of a process's threads from {@code /proc/<pid>/task/<tid>/stat}: user plus system time
 * in clock ticks, by thread, with the thread's name as the kernel keeps it ({@code comm}: the first
 * 15 bytes of the Java thread name), and the nanoseconds it ran from {@code
 * /proc/<pid>/task/<tid>/schedstat} (the scheduler's own count, finer than ticks). And which
 * threads serve shuffle blocks.
 */
final class ThreadCpu {
  /** Clock ticks per second of {@code utime}/{@code stime} (USER_HZ; 100 on Linux). */
  static final long TICKS_PER_SECOND = 100;

  /**
   * Name prefixes of the threads that serve shuffle blocks, as they appear in {@code comm}. Spark's
   * block transfer service (module {@code shuffle}): the Netty event loops of its {@code
   * TransportServer} ({@code shuffle-server-<pool>-<n>}, 15 bytes: {@code shuffle-server-}) and,
   * when configured, its chunk-fetch handlers ({@code shuffle-chunk-fetch-handler}), and the event
   * loops of its {@code TransportClientFactory} ({@code shuffle-client-<pool>-<n>}: the fetching
   * side). rdma-shuffle's connection server: its I/O threads ({@code rdma-io-<port>-<n>}, which
   * serve the tcp transport's READs, receive this process's own READ responses since the reading
   * side shares the I/O loops, and carry the process's calls), its acceptor and its call workers
   * (the locate service). So both sides count the threads that move shuffle bytes, serving and
   * fetching; both sets are counted on both sides.
   */
  static final List<String> SERVING_PREFIXES =
      List.of(
          "shuffle-server-",
          "shuffle-chunk-f",
          "shuffle-client-",
          "rdma-io-",
          "rdma-accept-",
          "rdma-call-");

  private ThreadCpu() {}

  /** One thread's name and CPU time: ticks, and nanoseconds on a CPU (-1 without schedstat). */
  record ThreadTime(String comm, long ticks, long cpuNanos) {
    ThreadTime(String comm, long ticks) {
      this(comm, ticks, -1);
    }
  }

  /**
   * Parses one {@code stat} line: {@code tid (comm) state ppid ...}, utime and stime the 14th and
   * 15th fields. The name may hold spaces and parentheses: it ends at the last ')'.
   */
  static ThreadTime parse(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    String[] rest = fieldsAfterName(stat, close);
    if (rest.length < 13) {
      throw new IllegalArgumentException("too few fields in /proc stat line: " + stat);
    }
    long utime = Long.parseLong(rest[14 - 3]);
    long stime = Long.parseLong(rest[15 - 3]);
    return new ThreadTime(stat.substring(open + 1, close), utime + stime);
  }

  /**
   * The parent's pid from a {@code stat} line: field 4, after the name's last ')' and the state.
   */
  static long parentPid(String stat) {
    int close = stat.lastIndexOf(')');
    String[] rest = close < 0 ? new String[0] : fieldsAfterName(stat, close);
    if (rest.length < 2 || !rest[1].matches("\\d+")) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    return Long.parseLong(rest[1]);
  }

  /**
   * The fields of a {@code stat} line after the name, which ends at {@code close}, its last ')':
   * element 0 is field 3 (the state), field n is element n - 3.
   */
  private static String[] fieldsAfterName(String stat, int close) {
    return stat.substring(close + 1).trim().split(" +");
  }

  /** The first field of a {@code schedstat} line: nanoseconds spent on a CPU. */
  static long parseSchedstat(String line) {
    String[] f = line.trim().split(" +");
    if (f.length < 3 || !f[0].matches("\\d+")) {
      throw new IllegalArgumentException("not a /proc schedstat line: " + line);
    }
    return Long.parseLong(f[0]);
  }

  /** The serving prefix {@code comm} starts with, or null for a thread that does not serve. */
  static String servingPrefix(String comm) {
    for (String p : SERVING_PREFIXES) {
      if (comm.startsWith(p)) {
        return p;
      }
    }
    return null;
  }

  /** Every live thread of {@code pid} by thread id; threads that end while listed are left out. */
  static Map<Long, ThreadTime> sample(long pid) {
    Map<Long, ThreadTime> threads = new TreeMap<>();
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
      for (Path t : ds) {
        try {
          ThreadTime stat = parse(Files.readString(t.resolve("stat")));
          long nanos =
              Files.exists(t.resolve("schedstat"))
                  ? parseSchedstat(Files.readString(t.resolve("schedstat")))
                  : -1;
          threads.put(
              Long.parseLong(t.getFileName().toString()),
              new ThreadTime(stat.comm(), stat.ticks(), nanos));
        } catch (NoSuchFileException ended) {
          // the thread ended between the listing and the read
        } catch (IOException ended) {
          // the thread ended while its files were read: "No such process" (ESRCH)
          if (Files.exists(t)) {
            throw ended;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the threads of process " + pid, e);
    }
    return threads;
  }

  /**
   * Ticks the serving threads used between two samples of one process, by serving prefix. A thread
   * absent from {@code before} started in between and counts from zero; a thread absent from {@code
   * after} ended in between and its last interval is lost (the serving threads of both stacks live
   * as long as their server).
   */
  static Map<String, Long> servingTicks(Map<Long, ThreadTime> before, Map<Long, ThreadTime> after) {
    Map<String, Long> byPrefix = new TreeMap<>();
    for (Map.Entry<Long, ThreadTime> e : after.entrySet()) {
      String prefix = servingPrefix(e.getValue().comm());
      if (prefix == null) {
        continue;
      }
      byPrefix.merge(prefix, ticksSince(before, e.getKey(), e.getValue()), Long::sum);
    }
    return byPrefix;
  }

  /**
   * Ticks thread {@code tid} used since {@code before}: all of them when it was not there, or was
   * another thread (its id reused under another name).
   */
  private static long ticksSince(Map<Long, ThreadTime> before, long tid, ThreadTime now) {
    ThreadTime b = before.get(tid);
    return now.ticks() - (b != null && b.comm().equals(now.comm()) ? b.ticks() : 0);
  }

  /**
   * Nanoseconds the serving threads ran between two samples of one process (as {@link
   * #servingTicks}, all prefixes together), or -1 when a sample has no schedstat.
   */
  static long servingNanos(Map<Long, ThreadTime> before, Map<Long, ThreadTime> after) {
    long sum = 0;
    for (Map.Entry<Long, ThreadTime> e : after.entrySet()) {
      ThreadTime a = e.getValue();
      if (servingPrefix(a.comm()) == null) {
        continue;
      }
      ThreadTime b = before.get(e.getKey());
      boolean same = b != null && b.comm().equals(a.comm());
      if (a.cpuNanos() < 0 || same && b.cpuNanos() < 0) {
        return -1;
      }
      sum += a.cpuNanos() - (same ? b.cpuNanos() : 0);
    }
    return sum;
  }

  /** What {@link #ticksByName} calls the ticks of threads that ended between the two samples. */
  static final String ENDED = "(threads that ended)";

  /**
   * A thread's name with its numbers replaced by {@code #}, so that the threads of one pool add up:
   * {@code rdma-io-40123-1} and {@code rdma-io-40123-2} are both {@code rdma-io-#-#} (and a comma
   * is a semicolon, for CSV).
   */
  static String group(String comm) {
    return comm.replaceAll("[0-9]+", "#").replace(',', ';');
  }

  /**
   * Ticks every thread used between two samples of one process, by {@link #group}, and, under
   * {@link #ENDED}, what the process used beyond its live threads: the threads that started and
   * ended in between, and the last interval of those that ended ({@code processTicks}, the
   * process's own count between the same samples, includes them).
   */
  static Map<String, Long> ticksByName(
      Map<Long, ThreadTime> before, Map<Long, ThreadTime> after, long processTicks) {
    Map<String, Long> byName = new TreeMap<>();
    long live = 0;
    for (Map.Entry<Long, ThreadTime> e : after.entrySet()) {
      long used = ticksSince(before, e.getKey(), e.getValue());
      live += used;
      if (used > 0) {
        byName.merge(group(e.getValue().comm()), used, Long::sum);
      }
    }
    if (processTicks > live) {
      byName.put(ENDED, processTicks - live);
    }
    return byName;
  }

  /** Ticks of the whole process so far, its ended threads included ({@code /proc/<pid>/stat}). */
  static long processTicks(long pid) {
    try {
      return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))).ticks();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CPU time of process " + pid, e);
    }
  }
}
