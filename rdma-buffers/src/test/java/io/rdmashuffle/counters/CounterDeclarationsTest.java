/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.counters;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.fetch.BlockFetchException;
import io.rdmashuffle.fetch.CorruptionCause;
import io.rdmashuffle.fetch.ReadCounter;
import io.rdmashuffle.fetch.ReadCounters;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportCounter;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.serve.ServingCounter;
import io.rdmashuffle.serve.ServingMetrics;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The core's counter groups: one declaration per counter, and the snapshots are those. */
class CounterDeclarationsTest {
  private static final List<Class<? extends CounterDescriptor>> GROUPS =
      List.of(TransportCounter.class, ServingCounter.class, ReadCounter.class);

  @Test
  void idsAndNamesAreUniqueAndLabelsOneLine() {
    Set<Integer> ids = new HashSet<>();
    Set<String> names = new HashSet<>();
    for (Class<? extends CounterDescriptor> g : GROUPS) {
      for (CounterDescriptor c : g.getEnumConstants()) {
        assertTrue(ids.add(c.id()), c + " reuses id " + c.id());
        assertTrue(names.add(c.exportName()), c + " reuses name " + c.exportName());
        assertFalse(c.label().isBlank() || c.label().contains("\n"), c.toString());
        assertFalse(c.exportName().isBlank() || c.exportName().contains(" "), c.toString());
      }
    }
  }

  @Test
  void snapshotsNameEveryDeclaredCounterInOrder() {
    assertEquals(names(TransportCounter.values()), keys(new TransportMetrics().snapshot()));
    assertEquals(names(ServingCounter.values()), keys(new ServingMetrics().snapshot()));
    assertEquals(names(ReadCounter.values()), keys(new ReadCounters().snapshot()));
  }

  @Test
  void everyKindOfEachFamilyHasItsOneCounter() {
    for (FailureKind k : FailureKind.values()) {
      assertEquals(k, TransportCounter.of(k).failure());
    }
    for (Refusal r : Refusal.values()) {
      assertEquals(r, TransportCounter.of(r).refusal());
    }
    for (LocateAnswer.Status s : LocateAnswer.Status.values()) {
      assertEquals(s, ServingCounter.of(s).status());
    }
    for (BlockFetchException.Kind k : BlockFetchException.Kind.values()) {
      assertEquals(k, ReadCounter.of(k).failure());
    }
    for (CorruptionCause c : CorruptionCause.values()) {
      assertEquals(c, ReadCounter.of(c).corruption());
    }
    assertEquals(
        FailureKind.values().length,
        Arrays.stream(TransportCounter.values()).filter(c -> c.failure() != null).count());
    assertEquals(
        Refusal.values().length,
        Arrays.stream(TransportCounter.values()).filter(c -> c.refusal() != null).count());
  }

  @Test
  void recordingReachesTheNamedCounter() {
    TransportMetrics t = new TransportMetrics();
    t.failure(FailureKind.CONNECTION_LOST);
    t.refused(Refusal.CALLS_BUSY);
    t.refused(Refusal.CALLS_BUSY);
    t.readCompleted(100, 1_000);
    Map<String, Long> m = t.snapshot();
    assertEquals(1L, m.get("failures.connectionLost"));
    assertEquals(2L, m.get("server.callsBusy"));
    assertEquals(100L, m.get("bytesRead"));
    assertEquals(1L, m.get("readsCompleted"));
    assertEquals(2L, t.refusals(Refusal.CALLS_BUSY));

    ReadCounters r = new ReadCounters();
    r.streamFailed();
    assertEquals(1L, r.snapshot().get("fetchFailures.stream"));
    assertEquals(1L, r.failures(BlockFetchException.Kind.STREAM));
  }

  @Test
  void aCounterSetSumsPerCounter() {
    CounterSet<ReadCounter> set = new CounterSet<>(ReadCounter.class);
    set.increment(ReadCounter.LOCATES);
    set.add(ReadCounter.BYTES_REMOTE, 40);
    set.add(ReadCounter.BYTES_REMOTE, 2);
    assertEquals(1, set.sum(ReadCounter.LOCATES));
    assertEquals(42, set.sum(ReadCounter.BYTES_REMOTE));
    assertEquals(0, set.sum(ReadCounter.RETRIES));
    assertEquals(42L, set.snapshot().get("bytesRemote"));
    assertEquals(7L, set.snapshot(c -> 7).get("blocksLocal"));
  }

  private static List<String> names(CounterDescriptor[] declared) {
    return Arrays.stream(declared).map(CounterDescriptor::exportName).toList();
  }

  private static List<String> keys(Map<String, Long> m) {
    return List.copyOf(m.keySet());
  }
}
