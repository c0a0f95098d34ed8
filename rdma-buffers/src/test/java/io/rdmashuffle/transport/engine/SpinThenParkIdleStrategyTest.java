/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SpinThenParkIdleStrategyTest {
  @Test
  void parksOnlyAfterItsSpinsAndWorkStartsTheCountAgain() {
    AtomicInteger parks = new AtomicInteger();
    SpinThenParkIdleStrategy idle = new SpinThenParkIdleStrategy(3, parks::incrementAndGet);

    for (int i = 0; i < 3; i++) {
      idle.idle(0);
    }
    assertEquals(0, parks.get(), "three spins first");
    idle.idle(0);
    assertEquals(1, parks.get());
    idle.idle(0);
    idle.idle(1); // work: spin again from the start
    for (int i = 0; i < 3; i++) {
      idle.idle(0);
    }
    assertEquals(1, parks.get());
    idle.idle(0);
    assertEquals(2, parks.get());
  }

  @Test
  void afterItsSpinsItYieldsForItsTimeThenParks() {
    AtomicInteger parks = new AtomicInteger();
    // its own clock: a loaded machine's yields can take longer than the 50 ms (seen in a build)
    AtomicLong now = new AtomicLong(1_000_000_000L);
    SpinThenParkIdleStrategy idle =
        new SpinThenParkIdleStrategy(1, 50_000_000L, parks::incrementAndGet, now::get);

    idle.idle(0); // spin
    idle.idle(0); // the yielding starts
    idle.idle(0);
    assertEquals(0, parks.get(), "still within its 50 ms of yielding");
    now.addAndGet(60_000_000L);
    idle.idle(0);
    assertEquals(1, parks.get());
    idle.idle(0);
    assertEquals(1, parks.get(), "after a park it spins again first");
  }
}
