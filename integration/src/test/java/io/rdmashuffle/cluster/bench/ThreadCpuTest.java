/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.cluster.bench.ThreadCpu.ThreadTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {
  /** A thread's stat line as Linux writes it: utime 1234 and stime 56 are fields 14 and 15. */
  static String stat(int tid, String comm, long utime, long stime) {
    return tid
        + " ("
        + comm
        + ") S 1 1 1 0 -1 1077936192 4242 0 0 0 "
        + utime
        + " "
        + stime
        + " 0 0 20 0 38 0 12345 8000000000 50000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0"
        + " -1 1 0 0 0 0 0\n";
  }

  @Test
  void parsesUserPlusSystemTicksAndTheName() {
    ThreadTime t = ThreadCpu.parse(stat(4321, "shuffle-server-", 1234, 56));
    assertEquals("shuffle-server-", t.comm());
    assertEquals(1290, t.ticks());
  }

  @Test
  void aNameWithSpacesAndParenthesesEndsAtTheLastParenthesis() {
    ThreadTime t = ThreadCpu.parse(stat(7, "a (b) c) d", 10, 5));
    assertEquals("a (b) c) d", t.comm());
    assertEquals(15, t.ticks());
  }

  @Test
  void theParentIsTheFourthField() {
    assertEquals(1, ThreadCpu.parentPid(stat(4321, "java (x) S 9", 1, 2)));
    assertEquals(4640, ThreadCpu.parentPid("4641 (java) R 4640 4600 4600 0 -1 0"));
    assertThrows(IllegalArgumentException.class, () -> ThreadCpu.parentPid("4641 (java) R"));
  }

  /** A process an executor forks carries the executor's command line until it runs another. */
  @Test
  void anExecutorsForkedChildIsNotAnotherExecutor() {
    assertEquals(
        java.util.List.of(4640L, 4667L, 4669L, 4835L),
        ServingCpuProbe.withoutChildren(
            new java.util.TreeMap<>(
                java.util.Map.of(
                    4640L, 900L, 4641L, 4640L, 4667L, 901L, 4669L, 902L, 4835L, 903L))));
  }

  @Test
  void rejectsWhatIsNotAStatLine() {
    assertThrows(IllegalArgumentException.class, () -> ThreadCpu.parse("no parentheses 1 2 3"));
    assertThrows(IllegalArgumentException.class, () -> ThreadCpu.parse("1 (x) S 1 2 3"));
  }

  @Test
  void theServingThreadsOfBothStacksAreKnownByTheirNames() {
    assertEquals("shuffle-server-", ThreadCpu.servingPrefix("shuffle-server-"));
    // the fetching side's Netty loops move shuffle bytes as our rdma-io threads' reading side does
    assertEquals("shuffle-client-", ThreadCpu.servingPrefix("shuffle-client-"));
    assertEquals("shuffle-chunk-f", ThreadCpu.servingPrefix("shuffle-chunk-f"));
    assertEquals("rdma-io-", ThreadCpu.servingPrefix("rdma-io-40123-1"));
    assertEquals("rdma-call-", ThreadCpu.servingPrefix("rdma-call-2"));
    assertNull(ThreadCpu.servingPrefix("rdma-tcp-recv-1"));
    assertNull(ThreadCpu.servingPrefix("Executor task l"));
  }

  @Test
  void servingTicksAreTheDifferenceOfServingThreadsByPrefix() {
    Map<Long, ThreadTime> before =
        Map.of(
            1L, new ThreadTime("rdma-io-4000-0", 100),
            2L, new ThreadTime("rdma-io-4000-1", 50),
            3L, new ThreadTime("Executor task l", 900));
    Map<Long, ThreadTime> after =
        Map.of(
            1L, new ThreadTime("rdma-io-4000-0", 130),
            2L, new ThreadTime("rdma-io-4000-1", 55),
            3L, new ThreadTime("Executor task l", 5000),
            4L, new ThreadTime("rdma-call-1", 7), // started in between: counts from zero
            5L, new ThreadTime("shuffle-server-", 0));
    Map<String, Long> ticks = ThreadCpu.servingTicks(before, after);
    assertEquals(Map.of("rdma-io-", 35L, "rdma-call-", 7L, "shuffle-server-", 0L), ticks);
  }

  @Test
  void aThreadIdReusedByAnotherThreadCountsFromZero() {
    Map<String, Long> ticks =
        ThreadCpu.servingTicks(
            Map.of(9L, new ThreadTime("Executor task l", 400)),
            Map.of(9L, new ThreadTime("rdma-io-4000-0", 12)));
    assertEquals(Map.of("rdma-io-", 12L), ticks);
  }

  @Test
  void schedstatsFirstFieldIsTheNanosecondsOnACpu() {
    assertEquals(687862, ThreadCpu.parseSchedstat("687862 240703 3\n"));
    assertThrows(IllegalArgumentException.class, () -> ThreadCpu.parseSchedstat("12 34"));
  }

  @Test
  void servingNanosAreTheDifferenceOverServingThreadsOnly() {
    Map<Long, ThreadTime> before =
        Map.of(
            1L, new ThreadTime("shuffle-server-", 10, 1_000),
            3L, new ThreadTime("Executor task l", 90, 50_000));
    Map<Long, ThreadTime> after =
        Map.of(
            1L, new ThreadTime("shuffle-server-", 12, 21_000),
            2L, new ThreadTime("shuffle-server-", 1, 300),
            3L, new ThreadTime("Executor task l", 99, 90_000));
    assertEquals(20_300, ThreadCpu.servingNanos(before, after));
    assertEquals(
        -1,
        ThreadCpu.servingNanos(Map.of(), Map.of(1L, new ThreadTime("rdma-io-4000-0", 3))),
        "a sample without schedstat");
  }

  @Test
  void readsThisProcessesThreads() {
    Map<Long, ThreadTime> self = ThreadCpu.sample(ProcessHandle.current().pid());
    assertTrue(self.size() > 1, "threads of this JVM: " + self);
    assertTrue(self.values().stream().anyMatch(t -> t.cpuNanos() > 0), "schedstat: " + self);
    assertTrue(ThreadCpu.processTicks(ProcessHandle.current().pid()) > 0);
  }

  @Test
  void everyThreadIsCountedByItsNameWithoutNumbersAndEndedThreadsApart() {
    Map<Long, ThreadTime> before =
        Map.of(
            1L, new ThreadTime("rdma-io-4012-1", 10),
            2L, new ThreadTime("rdma-io-4012-2", 20),
            3L, new ThreadTime("Executor task l", 100),
            4L, new ThreadTime("short-lived", 7));
    Map<Long, ThreadTime> after =
        Map.of(
            1L, new ThreadTime("rdma-io-4012-1", 15),
            2L, new ThreadTime("rdma-io-4012-2", 23),
            3L, new ThreadTime("Executor task l", 160),
            5L, new ThreadTime("C2 CompilerThre", 40),
            6L, new ThreadTime("idle", 0));
    // the process used 5 + 3 + 60 + 40 = 108 in its live threads, and 12 more in one that ended
    assertEquals(
        Map.of(
            "rdma-io-#-#",
            8L,
            "Executor task l",
            60L,
            "C# CompilerThre",
            40L,
            ThreadCpu.ENDED,
            12L),
        ThreadCpu.ticksByName(before, after, 120),
        "a thread that used nothing is left out");
    assertEquals(
        Map.of("Executor task l", 60L),
        ThreadCpu.ticksByName(Map.of(3L, before.get(3L)), Map.of(3L, after.get(3L)), 60),
        "nothing ended: no such entry");
    assertEquals("a;b #", ThreadCpu.group("a,b 12"));
  }
}
