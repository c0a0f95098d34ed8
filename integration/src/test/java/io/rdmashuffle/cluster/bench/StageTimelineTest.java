/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmashuffle.cluster.net.Rate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StageTimelineTest {
  /** 8 Mbit/s: 100,000 bytes per host per 100 ms at the full rate. */
  private static final Rate RATE = new Rate(8_000_000L);

  private static StageTimeline.Sample s(long millis, long r0, long r1, long s0, long s1) {
    return new StageTimeline.Sample(millis, new long[] {r0, r1}, new long[] {s0, s1}, 0);
  }

  private static StageTimeline.Sample cpu(long millis, long r, long ticks) {
    return new StageTimeline.Sample(millis, new long[] {r, r}, new long[] {0, 0}, ticks);
  }

  @Test
  void theBusiestLinkInEitherDirectionIsComparedWithTheMean() {
    StageTimeline t =
        new StageTimeline(
            List.of(
                s(1000, 10, 20, 30, 40), s(1100, 110, 520, 30, 40), s(1200, 210, 620, 930, 40)));
    // host 1 received 600, host 0 sent 900: the busiest link carried 900 bytes
    assertEquals(900, t.busiestBytes());
    // the hosts received 800 in all, 400 each on average
    assertEquals(900 / 400.0, t.balance(), 1e-12);
    StageTimeline mb =
        new StageTimeline(List.of(s(0, 0, 0, 0, 0), s(1, 2_400_000, 600_000, 1_000_000, 0)));
    assertEquals("2/1 1/0", mb.perHostMegabytes());
  }

  @Test
  void startAndTailAreWhenTheLinksWereFirstAndLastHalfBusy() {
    // stage from 1000 to 1650: idle, a quarter, full, full, a quarter, idle
    StageTimeline t =
        new StageTimeline(
            List.of(
                s(1000, 0, 0, 0, 0),
                s(1100, 0, 0, 0, 0),
                s(1200, 25_000, 25_000, 0, 0),
                s(1300, 125_000, 125_000, 0, 0),
                s(1400, 225_000, 225_000, 0, 0),
                s(1500, 250_000, 250_000, 0, 0),
                s(1600, 250_000, 250_000, 0, 0)));
    assertEquals(300, t.start(1000, RATE)); // the interval 1200-1300 is the first busy one
    assertEquals(350, t.tail(1650, RATE)); // the last busy one began at 1300
  }

  @Test
  void exactlyHalfCountsAsBusyAndLessDoesNot() {
    StageTimeline half = new StageTimeline(List.of(s(0, 0, 0, 0, 0), s(100, 50_000, 50_000, 0, 0)));
    assertEquals(100, half.start(0, RATE));
    StageTimeline less = new StageTimeline(List.of(s(0, 0, 0, 0, 0), s(100, 50_000, 49_999, 0, 0)));
    assertEquals(-1, less.start(0, RATE));
    assertEquals(-1, less.tail(100, RATE));
  }

  @Test
  void countersAreReadFromTheBridgeSideOfEachLink(@TempDir Path dir) throws Exception {
    Path link = dir.resolve("rs-h1-br");
    Files.createDirectories(link.resolve("statistics"));
    // on the bridge side, tx is what the host received and rx what it sent
    Files.writeString(link.resolve("statistics/tx_bytes"), "1234\n");
    Files.writeString(link.resolve("statistics/rx_bytes"), "567\n");
    StageTimeline.Sample s = StageTimeline.read(List.of(link), 42, 7);
    assertEquals(7, s.cpuTicks());
    assertEquals(42, s.millis());
    assertEquals(1234, s.received()[0]);
    assertEquals(567, s.sent()[0]);
  }

  @Test
  void theCpuShareIsUntilTheLinksAreFirstHalfBusy() {
    // 2 cores for 200 ms hold 40 ticks; the executors used 30 of them before the links got busy
    StageTimeline t =
        new StageTimeline(
            List.of(
                cpu(0, 0, 100), cpu(100, 0, 115), cpu(200, 100_000, 130), cpu(300, 200_000, 200)));
    assertEquals(0.75, t.cpuShareBefore(RATE, 2), 1e-12);
    StageTimeline idle = new StageTimeline(List.of(cpu(0, 0, 0), cpu(100, 0, 20)));
    assertEquals(Double.NaN, idle.cpuShareBefore(RATE, 2));
  }

  @Test
  void theCsvCountsFromTheFirstSample() {
    StageTimeline t = new StageTimeline(List.of(s(1010, 5, 6, 7, 8), s(1110, 105, 56, 17, 9)));
    assertEquals(
        "millis,cpu_ticks,in1,out1,in2,out2\n10,0,0,0,0,0\n110,0,100,10,50,1\n", t.csv(1000));
  }
}
