package io.rdmashuffle.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
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
  void afterItsSpinsItYieldsForItsTimeThenParks() throws InterruptedException {
    AtomicInteger parks = new AtomicInteger();
    SpinThenParkIdleStrategy idle =
        new SpinThenParkIdleStrategy(1, 50_000_000L, parks::incrementAndGet);

    idle.idle(0); // spin
    idle.idle(0); // the yielding starts
    idle.idle(0);
    assertEquals(0, parks.get(), "still within its 50 ms of yielding");
    Thread.sleep(60);
    idle.idle(0);
    assertEquals(1, parks.get());
    idle.idle(0);
    assertEquals(1, parks.get(), "after a park it spins again first");
  }
}
