/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class RefCountTest {
  @Test
  void aPlainCountFreesOnTheLastReleaseAndRefusesOneMore() {
    RefCount c = RefCount.open("thing");
    assertTrue(c.tryRetain());
    assertEquals(2, c.get());
    assertFalse(c.release());
    assertTrue(c.release(), "the last release says so");
    assertTrue(c.isFreed());
    IllegalStateException e = assertThrows(IllegalStateException.class, c::release);
    assertTrue(e.getMessage().contains("thing refCnt=0"), e.getMessage());
    assertEquals(0, c.get(), "a refused release leaves the count at zero, never below");
    assertFalse(c.tryRetain(), "a freed count is not revived by a retain");
    assertThrows(IllegalStateException.class, c::retain);
    assertThrows(IllegalStateException.class, c::close, "a plain count has no owner to withdraw");
  }

  @Test
  void aPooledCountIsRevivedOnlyWhenFreed() {
    RefCount c = RefCount.freed("buffer");
    assertThrows(IllegalStateException.class, c::release);
    c.revive();
    assertEquals(1, c.get());
    assertThrows(IllegalStateException.class, c::revive, "lent twice");
    assertEquals(1, c.get());
    assertTrue(c.release());
    c.revive();
    assertEquals(1, c.get());
  }

  @Test
  void closeWithdrawsAtOnceAndTheLastInFlightReleaseFrees() {
    RefCount c = RefCount.withdrawable("region");
    assertTrue(c.tryRetain());
    assertTrue(c.tryRetain());
    assertEquals(RefCount.Close.STILL_IN_USE, c.close());
    assertFalse(c.isOpen());
    assertFalse(c.isFreed());
    assertEquals(2, c.get(), "two in flight, the owner's reference gone");
    assertFalse(c.tryRetain(), "no new reference after close");
    assertEquals(RefCount.Close.ALREADY_CLOSED, c.close(), "close is idempotent");
    assertFalse(c.release());
    assertTrue(c.release());
    assertTrue(c.isFreed());
    assertThrows(IllegalStateException.class, c::release);
    assertEquals(0, c.get());
    assertEquals(RefCount.Close.ALREADY_CLOSED, c.close());
  }

  @Test
  void closingAnUnusedCountFreesAtOnce() {
    RefCount c = RefCount.withdrawable("region");
    assertEquals(RefCount.Close.FREE_NOW, c.close());
    assertTrue(c.isFreed());
  }

  @Test
  void theOwnersReferenceIsGivenBackOnlyByClose() {
    RefCount c = RefCount.withdrawable("region");
    assertThrows(IllegalStateException.class, c::release);
    assertTrue(c.isOpen());
    assertEquals(1, c.get());
    assertThrows(IllegalStateException.class, c::revive);
  }

  @Test
  void aCountCannotGrowIntoTheClosedRange() {
    RefCount c = new RefCount("region", true, RefCount.MAX_REFS - 1);
    assertTrue(c.tryRetain());
    IllegalStateException e = assertThrows(IllegalStateException.class, c::tryRetain);
    assertTrue(e.getMessage().contains("too many references"), e.getMessage());
    assertEquals(RefCount.Close.STILL_IN_USE, c.close());
    assertEquals(RefCount.MAX_REFS - 1, c.get());
    assertFalse(c.isOpen());
  }
}
