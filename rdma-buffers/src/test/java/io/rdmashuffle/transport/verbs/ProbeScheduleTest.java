/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When served queue pairs are probed, on a clock the test moves. */
class ProbeScheduleTest {
  private static final long INTERVAL = 1_000;
  private static final long FIRST = 5_000;
  private static final long ANSWER = 3_000;

  private static List<Long> due(ProbeSchedule s, long now) {
    List<Long> keys = new ArrayList<>();
    s.due(now, keys::add);
    return keys;
  }

  @Test
  void theFirstProbeWaitsTheFirstDelayThenOneIntervalAfterEachAnswer() {
    ProbeSchedule s = new ProbeSchedule(INTERVAL, FIRST, ANSWER, 10);
    s.add(1, 100);

    assertEquals(List.of(), due(s, 100 + FIRST - 1));
    assertEquals(List.of(1L), due(s, 100 + FIRST));
    assertEquals(1, s.inFlight());
    assertEquals(List.of(), due(s, 100 + FIRST + 10 * INTERVAL), "one probe at a time");

    assertTrue(s.answered(1, 7_000));
    assertEquals(0, s.inFlight());
    assertEquals(List.of(), due(s, 7_000 + INTERVAL - 1));
    assertEquals(List.of(1L), due(s, 7_000 + INTERVAL));
  }

  private static List<Long> overdue(ProbeSchedule s, long now) {
    List<Long> keys = new ArrayList<>();
    s.overdue(now, keys::add);
    return keys;
  }

  @Test
  void aProbeUnansweredForTheAnswerDeadlineIsOverdueOnceAndItsKeyNoLongerWatched() {
    ProbeSchedule s = new ProbeSchedule(INTERVAL, FIRST, ANSWER, 10);
    s.add(1, 0);
    s.add(2, 0);
    assertEquals(List.of(1L, 2L), due(s, FIRST));
    for (long t = FIRST; t < FIRST + ANSWER; t += INTERVAL / 3) {
      assertEquals(List.of(), due(s, t), "no second probe while one is in flight");
      assertEquals(List.of(), overdue(s, t));
    }
    assertTrue(s.answered(2, FIRST + ANSWER - 1));

    assertEquals(List.of(1L), overdue(s, FIRST + ANSWER), "answered in time: 2 is not");
    assertFalse(s.watches(1));
    assertEquals(0, s.inFlight());
    assertEquals(List.of(), overdue(s, FIRST + 100 * ANSWER));
    assertFalse(s.answered(1, FIRST + ANSWER + 1), "a late answer changes nothing");
    assertEquals(List.of(2L), due(s, FIRST + ANSWER - 1 + INTERVAL));
  }

  @Test
  void aRemovedQueuePairsProbeIsNeverOverdue() {
    ProbeSchedule s = new ProbeSchedule(INTERVAL, FIRST, ANSWER, 10);
    s.add(1, 0);
    assertEquals(List.of(1L), due(s, FIRST));
    s.remove(1);
    assertEquals(List.of(), overdue(s, FIRST + ANSWER));
  }

  @Test
  void probesInFlightStayWithinTheRoomAndTheRestGoAsAnswersFreeIt() {
    ProbeSchedule s = new ProbeSchedule(INTERVAL, FIRST, ANSWER, 2);
    for (long k = 1; k <= 5; k++) {
      s.add(k, k);
    }

    assertEquals(List.of(1L, 2L), due(s, 10 * FIRST), "earliest first, two at most");
    assertEquals(List.of(), due(s, 10 * FIRST));

    assertTrue(s.answered(2, 10 * FIRST));
    assertEquals(List.of(3L), due(s, 10 * FIRST + 1));
    s.remove(1); // dropped while its probe was in flight: its room is free
    assertEquals(List.of(4L), due(s, 10 * FIRST + 2));
    assertEquals(2, s.inFlight());
    assertFalse(s.answered(1, 10 * FIRST + 3), "a late answer of a dropped queue pair");
    assertEquals(2, s.inFlight());
  }

  @Test
  void aRemovedQueuePairIsNotProbedAndAnAnsweredOneKeepsItsOnlyTurn() {
    ProbeSchedule s = new ProbeSchedule(INTERVAL, INTERVAL, ANSWER, 10);
    s.add(1, 0);
    s.add(2, 0);
    s.remove(1);
    assertEquals(List.of(2L), due(s, INTERVAL));
    s.answered(2, INTERVAL);
    assertEquals(List.of(2L), due(s, 5 * INTERVAL), "due once, however late the round");
    assertFalse(s.watches(1));
    assertEquals(1, s.size());

    s.add(1, 5 * INTERVAL); // the key of a dropped queue pair may come back
    assertEquals(List.of(), due(s, 6 * INTERVAL - 1));
    assertEquals(List.of(1L), due(s, 6 * INTERVAL));
  }

  @Test
  void rejectsWhatCanNotBeScheduled() {
    assertThrows(IllegalArgumentException.class, () -> new ProbeSchedule(0, 1, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new ProbeSchedule(2, 1, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new ProbeSchedule(1, 1, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new ProbeSchedule(1, 1, 1, 0));
    ProbeSchedule s = new ProbeSchedule(1, 1, 1, 1);
    s.add(7, 0);
    assertThrows(IllegalStateException.class, () -> s.add(7, 0));
  }
}
