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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A region closed while READs retain and release it: freed exactly once, never while a reference is
 * held, never retained after it was withdrawn.
 */
@Timeout(120)
class RegisteredRegionStressTest {
  private static final int USES = 200;

  private final CountingRegistrar registrar = new CountingRegistrar();

  /** One region raced by three users and a closer. */
  private final class Round implements Stress.Round {
    final AtomicInteger freed = new AtomicInteger();
    final AtomicInteger usedAfterFree = new AtomicInteger();
    final AtomicInteger retainedAfterClose = new AtomicInteger();
    volatile boolean closed;
    final RegisteredRegion region;

    Round() throws Exception {
      region =
          registrar.register(
              MemoryPiece.of(DirectMemory.allocate(64)),
              Access.REMOTE_READ,
              "app",
              freed::incrementAndGet);
    }

    private void use() {
      for (int i = 0; i < USES; i++) {
        boolean closedBefore = closed;
        if (region.tryRetain()) {
          if (closedBefore) {
            retainedAfterClose.incrementAndGet();
          }
          if (freed.get() != 0) {
            usedAfterFree.incrementAndGet();
          }
          region.release();
        }
      }
    }

    private void close() {
      int spins = ThreadLocalRandom.current().nextInt(USES * 20);
      for (int i = 0; i < spins; i++) {
        Thread.onSpinWait();
      }
      region.close();
      closed = true;
      region.close();
    }

    @Override
    public List<Stress.Loop> actors() {
      return List.of(this::use, this::use, this::use, this::close);
    }

    @Override
    public void check() {
      assertEquals(1, freed.get(), "freed exactly once");
      assertEquals(0, usedAfterFree.get(), "a holder of a reference saw the region freed");
      assertEquals(0, retainedAfterClose.get(), "retained after close() returned");
      assertEquals(0, region.refCnt());
      assertFalse(region.isOpen());
      assertThrows(IllegalStateException.class, region::release);
      assertFalse(region.tryRetain());
    }
  }

  @Test
  void closeRacingWithRetainAndReleaseFreesOnceAndNeverUnderAHolder() throws Exception {
    int rounds =
        Stress.rounds(
            Duration.ofSeconds(3),
            20_000,
            () -> {
              try {
                return new Round();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    assertTrue(rounds > 0);
    assertEquals(registrar.registrations.get(), registrar.deregistrations.get());
    assertEquals(0, registrar.accounting().registeredBytes());
  }
}
