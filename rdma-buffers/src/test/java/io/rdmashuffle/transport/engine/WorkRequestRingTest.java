/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.transport.ReadOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WorkRequestRingTest {
  @Test
  void readsLeaveInPostingOrderAndTheirSequenceNumbersComeBackFromTheirLowBits() {
    WorkRequestRing ring = new WorkRequestRing(4);
    ReadOp a = new ReadOp();
    ReadOp b = new ReadOp();
    long sa = ring.add(a, 10);
    long sb = ring.add(b, 20);

    assertEquals(sb, ring.sequenceOf((int) sb));
    assertEquals(10, ring.oldestPostedAt());
    assertSame(a, ring.removeOldest());
    assertEquals(-1, ring.sequenceOf((int) sa), "an ended READ matches nothing");
    assertSame(b, ring.oldest());
    assertEquals(1, ring.size());
  }

  @Test
  void aFullRingRefusesMoreAndWrapsAroundAfterRemovals() {
    WorkRequestRing ring = new WorkRequestRing(2);
    for (int round = 0; round < 5; round++) {
      ring.add(new ReadOp(), round);
      ring.add(new ReadOp(), round);
      assertThrows(IllegalStateException.class, () -> ring.add(new ReadOp(), 0));
      ring.removeOldest();
      ring.removeOldest();
      assertTrue(ring.isEmpty());
    }
    assertEquals(10, ring.oldestSequence());
  }

  @Test
  void sequenceNumbersAcrossTwoToThe32StillMatchTheirLowBits() {
    long first = (1L << 32) - 3;
    WorkRequestRing ring = new WorkRequestRing(8, first);
    for (int i = 0; i < 6; i++) {
      ring.add(new ReadOp(), i);
    }

    for (long seq = first; seq < first + 6; seq++) {
      assertEquals(seq, ring.sequenceOf((int) seq), "sequence " + seq);
    }
    assertEquals(-1, ring.sequenceOf((int) (first + 6)), "not posted yet");
    assertEquals(-1, ring.sequenceOf((int) (first - 1)), "before the oldest");
    ring.removeOldest();
    assertEquals(-1, ring.sequenceOf((int) first), "ended");
  }
}
