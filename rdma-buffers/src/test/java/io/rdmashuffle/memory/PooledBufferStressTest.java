/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Stress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Pooled buffers under races: a release that comes once too often, while the pool lends the same
 * buffer again, must fail without touching the new borrower's count.
 */
@Timeout(120)
class PooledBufferStressTest {
  private final CountingRegistrar registrar = new CountingRegistrar();

  @Test
  void aDoubleReleaseRacingWithTheNextLendNeverCorruptsTheCount() throws Exception {
    // one slot, handles reused (no per-lend tracking): the production configuration
    BufferPool pool = new BufferPool(registrar, 4096, 4096, 4096, false);
    AtomicLong lends = new AtomicLong();
    AtomicLong releases = new AtomicLong();
    AtomicInteger lowest = new AtomicInteger();
    AtomicInteger highest = new AtomicInteger();
    PooledBuffer[] handle = new PooledBuffer[1];
    PooledBuffer first = pool.allocate(100, 10, TimeUnit.SECONDS);
    handle[0] = first;
    first.release();
    releases.incrementAndGet();
    lends.incrementAndGet();
    Stress.Loop borrower =
        () -> {
          PooledBuffer b = pool.allocate(100, 5, TimeUnit.SECONDS);
          assertNotNull(b, "the only buffer never came back: a lend was lost to a racing release");
          lends.incrementAndGet();
          int n = b.refCnt();
          lowest.accumulateAndGet(n, Math::min);
          highest.accumulateAndGet(n, Math::max);
          release(b, releases);
        };
    Stress.Loop doubleReleaser = () -> release(handle[0], releases);
    Stress.loops(Duration.ofSeconds(3), borrower, doubleReleaser, doubleReleaser);
    // every lend ends in exactly one successful release; every other release failed
    assertEquals(lends.get(), releases.get(), "successful releases vs lends");
    assertTrue(lowest.get() >= 0, "a borrower saw refCnt=" + lowest.get());
    assertTrue(
        highest.get() <= 1, "a borrower saw refCnt=" + highest.get() + " right after the lend");
    assertEquals(0, pool.lentBytes());
    assertEquals(0, handle[0].refCnt());
    pool.close();
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  @Test
  void holdersReleasingTogetherReturnTheBufferExactlyOnce() throws Exception {
    BufferPool pool = new BufferPool(registrar, 4096, 65536, 65536, false);
    int rounds =
        Stress.rounds(
            Duration.ofSeconds(2),
            20_000,
            () ->
                new Stress.Round() {
                  final PooledBuffer b = allocate(pool);
                  final AtomicInteger last = new AtomicInteger();
                  final Stress.Loop holder =
                      () -> {
                        if (b.release()) {
                          last.incrementAndGet();
                        }
                      };

                  {
                    b.retain().retain();
                  }

                  @Override
                  public List<Stress.Loop> actors() {
                    return List.of(holder, holder, holder);
                  }

                  @Override
                  public void check() {
                    assertEquals(1, last.get(), "exactly one release was the last");
                    assertEquals(0, b.refCnt());
                    assertEquals(0, pool.lentBytes());
                  }
                });
    assertTrue(rounds > 0);
    pool.close();
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  private static PooledBuffer allocate(BufferPool pool) {
    try {
      return pool.allocate(100, 10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void release(PooledBuffer b, AtomicLong releases) {
    try {
      b.release();
      releases.incrementAndGet();
    } catch (IllegalStateException e) {
      // a release of a buffer that is back in the pool: refused, the count untouched
    }
  }
}
