/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.CountingRegistrar;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RegisteredRegionTest {
  private final CountingRegistrar registrar = new CountingRegistrar();

  @Test
  void closeWithdrawsAtOnceButFreesOnlyAfterTheLastInFlightUse() throws Exception {
    AtomicInteger freed = new AtomicInteger();
    RegisteredRegion r =
        registrar.register(
            MemoryPiece.of(DirectMemory.allocate(4096)),
            Access.REMOTE_READ,
            "app",
            freed::incrementAndGet);
    assertTrue(r.tryRetain());
    assertTrue(r.tryRetain());
    r.close();
    assertFalse(r.isOpen());
    assertFalse(r.tryRetain(), "no new use after close");
    assertEquals(0, freed.get(), "two uses still in flight");
    assertEquals(0, registrar.deregistrations.get());
    r.release();
    assertEquals(0, freed.get());
    r.release();
    assertEquals(1, freed.get());
    assertEquals(1, registrar.deregistrations.get());
    r.close();
    assertEquals(1, freed.get(), "close is idempotent");
  }

  @Test
  void anUnusedRegionIsFreedByClose() throws Exception {
    AtomicInteger freed = new AtomicInteger();
    RegisteredRegion r =
        registrar.register(
            MemoryPiece.of(DirectMemory.allocate(64)),
            Access.LOCAL_WRITE,
            "",
            freed::incrementAndGet);
    r.close();
    assertEquals(1, freed.get());
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  @Test
  void releasingMoreThanRetainedIsABug() throws Exception {
    RegisteredRegion r =
        registrar.register(
            MemoryPiece.of(DirectMemory.allocate(64)), Access.LOCAL_WRITE, "", () -> {});
    assertTrue(r.tryRetain());
    r.release();
    assertThrows(IllegalStateException.class, r::release);
    r.close();
  }

  @Test
  void anExtraReleaseOfAnOpenRegionIsRefusedAndCloseStillFreesIt() throws Exception {
    AtomicInteger freed = new AtomicInteger();
    RegisteredRegion r =
        registrar.register(
            MemoryPiece.of(DirectMemory.allocate(64)),
            Access.REMOTE_READ,
            "app",
            freed::incrementAndGet);
    assertThrows(IllegalStateException.class, r::release, "only close() gives back the owner's");
    assertTrue(r.isOpen(), "the refused release changed nothing");
    assertEquals(1, r.refCnt());
    r.close();
    assertEquals(1, freed.get(), "close still deregisters");
    assertEquals(0, registrar.accounting().registeredBytes());
    assertThrows(IllegalStateException.class, r::release);
    assertEquals(0, r.refCnt(), "a release after the region was freed changes nothing");
    assertEquals(1, freed.get());
  }

  @Test
  void retainNeedsAnOpenRegion() throws Exception {
    RegisteredRegion r =
        registrar.register(
            MemoryPiece.of(DirectMemory.allocate(64)), Access.LOCAL_WRITE, "", () -> {});
    assertSame(r, r.retain());
    assertEquals(2, r.refCnt());
    r.close();
    assertEquals(1, r.refCnt(), "the in-flight reference only");
    assertThrows(IllegalStateException.class, r::retain);
    assertTrue(r.release(), "the last release frees");
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  @Test
  void containsChecksBothEndsWithoutOverflow() throws Exception {
    RegisteredRegion r =
        registrar.register(
            MemoryPiece.of(DirectMemory.allocate(100)), Access.REMOTE_READ, "app", () -> {});
    long a = r.address();
    assertTrue(r.contains(a, 100));
    assertTrue(r.contains(a + 99, 1));
    assertFalse(r.contains(a + 99, 2));
    assertFalse(r.contains(a - 1, 1));
    assertFalse(r.contains(a + 50, Long.MAX_VALUE));
    assertFalse(r.contains(Long.MAX_VALUE, 1));
    r.close();
  }
}
