/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class InFlightCallsTest {
  private static PendingCall due(long deadlineNanos) {
    return new PendingCall(1, new byte[0], new CompletableFuture<ByteBuffer>(), deadlineNanos);
  }

  @Test
  void callsLeaveByDeadlineWhateverTheOrderTheyWereSentIn() {
    InFlightCalls f = new InFlightCalls();
    PendingCall late = due(300);
    PendingCall first = due(100);
    PendingCall middle = due(200);
    f.add(late);
    f.add(first);
    f.add(middle);
    assertEquals(100, f.earliestDeadline());
    assertNull(f.removeLate(100), "not past its deadline yet");
    assertSame(first, f.removeLate(150));
    assertNull(f.removeLate(150));
    assertEquals(200, f.earliestDeadline());
    assertSame(middle, f.removeLate(1_000));
    assertSame(late, f.removeLate(1_000));
    assertNull(f.removeLate(1_000));
    assertTrue(f.isEmpty());
  }

  @Test
  void deadlinesAreComparedAcrossTheNanoClocksWrap() {
    InFlightCalls f = new InFlightCalls();
    PendingCall after = due(Long.MIN_VALUE + 10); // past the wrap: later than MAX_VALUE - 10
    PendingCall before = due(Long.MAX_VALUE - 10);
    f.add(after);
    f.add(before);
    assertEquals(Long.MAX_VALUE - 10, f.earliestDeadline());
    assertSame(before, f.removeLate(Long.MAX_VALUE - 5));
    assertNull(f.removeLate(Long.MAX_VALUE - 5));
  }

  @Test
  void removingAllHandsOverEveryCallAndLeavesNoneDue() {
    InFlightCalls f = new InFlightCalls();
    f.add(due(5));
    f.add(due(7));
    List<PendingCall> all = f.removeAll();
    assertEquals(2, all.size());
    assertTrue(f.isEmpty());
    assertNull(f.removeLate(1_000));
    PendingCall next = due(9);
    f.add(next);
    assertEquals(9, f.earliestDeadline());
  }
}
