/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The locate calls of one process's readers against an owner that answers when the test says: how
 * many go out at once, which are merged, what each caller is answered, and which leases the owner
 * is told to end.
 */
class CoalescingLocatorTest {
  private static final PeerAddress OWNER = new PeerAddress("198.18.0.2", 7000);
  private static final String APP = "app-merge";
  private static final long A = 11;
  private static final long B = 12;
  private static final long C = 13;

  /** An owner whose answers the test gives: each map located, its table the partitions asked. */
  private static class HeldOwner implements Locator {
    final List<LocateRequest> asked = new ArrayList<>();
    final List<CompletableFuture<LocateAnswer>> answers = new ArrayList<>();
    final List<ReleaseRequest> released = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<LocateAnswer> locate(
        PeerAddress owner, String application, LocateRequest request) {
      assertEquals(OWNER, owner);
      assertEquals(APP, application);
      asked.add(request);
      CompletableFuture<LocateAnswer> f = new CompletableFuture<>();
      answers.add(f);
      return f;
    }

    @Override
    public synchronized void release(PeerAddress owner, String application, ReleaseRequest r) {
      released.add(r);
    }

    @Override
    public long maxAnswerBytes() {
      return 1 << 20;
    }

    /** Answers call {@code i} as an owner that has every map asked for. */
    void answer(int i) {
      LocateRequest r;
      CompletableFuture<LocateAnswer> f;
      synchronized (this) {
        r = asked.get(i);
        f = answers.get(i);
      }
      List<Located> maps = new ArrayList<>();
      for (String m : r.maps()) {
        maps.add(Located.local(m, "/data/" + m, table(r.startPartition(), r.endPartition())));
      }
      f.complete(new LocateAnswer(TransportKind.TCP, OWNER, maps));
    }

    synchronized int calls() {
      return asked.size();
    }
  }

  private static PartitionTable table(int first, int end) {
    int n = end - first;
    long[] starts = new long[n];
    long[] lengths = new long[n];
    for (int i = 0; i < n; i++) {
      starts[i] = 100L * i;
      lengths[i] = 100;
    }
    return new PartitionTable(first, starts, lengths, null, ChecksumAlgorithm.NONE, null);
  }

  private static LocateRequest request(long reader, int start, int end, String... maps) {
    return new LocateRequest("7", List.of(maps), start, end, false, reader);
  }

  private static List<String> mapsOf(CompletableFuture<LocateAnswer> f) {
    return f.join().maps().stream().map(Located::map).toList();
  }

  @Test
  void callsBeyondTheOwnersWorkersWaitAndGoOutAsOne() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 2);
    var a = locator.locate(OWNER, APP, request(A, 5, 6, "1", "2"));
    var b = locator.locate(OWNER, APP, request(B, 6, 7, "1", "2"));
    var c = locator.locate(OWNER, APP, request(C, 6, 8, "3", "1", "2"));
    var d = locator.locate(OWNER, APP, request(A, 6, 7, "4"));
    assertEquals(2, owner.calls(), "calls in flight to one owner: as many as it has workers");
    assertEquals(A, owner.asked.get(0).reader(), "a call of one caller is its own");
    assertEquals(B, owner.asked.get(1).reader());

    owner.answer(1);
    assertEquals(List.of("1", "2"), mapsOf(b));
    assertEquals(3, owner.calls(), "the two that waited went out as one call");
    LocateRequest merged = owner.asked.get(2);
    assertEquals(List.of("3", "1", "2", "4"), merged.maps());
    assertEquals(6, merged.startPartition());
    assertEquals(8, merged.endPartition());
    assertNotEquals(0, merged.reader());
    assertFalse(
        List.of(A, B, C).contains(merged.reader()), "leases of a merged call: an id of its own");
    assertFalse(c.isDone());

    owner.answer(2);
    assertEquals(List.of("3", "1", "2"), mapsOf(c), "each caller: its own maps, in its order");
    assertEquals(List.of("4"), mapsOf(d));
    for (Located e : c.join().maps()) {
      assertTrue(e.partitions().first() <= 6 && e.partitions().end() >= 8, e.partitions() + "");
    }
    owner.answer(0);
    assertEquals(List.of("1", "2"), mapsOf(a));
    assertEquals(4, locator.requests());
    assertEquals(3, locator.calls());
  }

  @Test
  void requestsAreMergedOnlyWhereTheCallStaysTightAndAlike() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "1"));
    // far apart: one call would carry 101 partitions of each map for 2 needed
    locator.locate(OWNER, APP, request(B, 0, 1, "2"));
    locator.locate(OWNER, APP, request(C, 100, 101, "3"));
    // another shuffle, and local paths: never with the others
    locator.locate(OWNER, APP, new LocateRequest("8", List.of("2"), 0, 1, false, C));
    locator.locate(OWNER, APP, new LocateRequest("7", List.of("5"), 0, 1, true, C));
    for (int i = 0; i < 5; i++) {
      assertEquals(i + 1, owner.calls());
      owner.answer(i);
    }
    assertEquals(5, owner.calls(), "none of them merged");
    assertEquals(List.of("2"), owner.asked.get(1).maps());
    assertEquals(B, owner.asked.get(1).reader());
  }

  @Test
  void aLeaseOfAMergedCallEndsWhenEveryCallerThatNeedsItReleasedIt() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "9"));
    locator.locate(OWNER, APP, request(B, 1, 2, "1", "2"));
    locator.locate(OWNER, APP, request(C, 2, 3, "2", "3"));
    owner.answer(0);
    owner.answer(1);
    long lease = owner.asked.get(1).reader();

    locator.release(OWNER, APP, new ReleaseRequest(B, "7", List.of("1", "2")));
    assertEquals(
        List.of(new ReleaseRequest(lease, "7", List.of("1"))),
        owner.released,
        "map 2 is still READ by C under the same lease");
    locator.release(OWNER, APP, new ReleaseRequest(C, "7", List.of("2", "3")));
    locator.release(OWNER, APP, new ReleaseRequest(A, "7", List.of("9")));
    assertEquals(
        List.of(
            new ReleaseRequest(lease, "7", List.of("1")),
            new ReleaseRequest(lease, "7", List.of("2", "3")),
            new ReleaseRequest(A, "7", List.of("9"))),
        owner.released);
    locator.release(OWNER, APP, new ReleaseRequest(A, "7", List.of("9")));
    assertEquals(3, owner.released.size(), "a lease is released once");
    assertEquals(0, locator.heldOutputs());
  }

  @Test
  void aCallerThatReleasesWhatStillWaitsLeavesNoLeaseBehind() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "1"));
    locator.locate(OWNER, APP, request(B, 0, 1, "2"));
    locator.release(OWNER, APP, new ReleaseRequest(B, "7", List.of("2"))); // B's task closed
    owner.answer(0);
    owner.answer(1);
    locator.release(OWNER, APP, new ReleaseRequest(A, "7", List.of("1")));
    assertEquals(0, locator.heldOutputs());
    assertEquals(List.of(new ReleaseRequest(A, "7", List.of("1"))), owner.released);
  }

  @Test
  void aFailedMergedCallFailsEveryCallerAndTheNextCallGoesOut() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "1"));
    var b = locator.locate(OWNER, APP, request(B, 0, 1, "2"));
    var c = locator.locate(OWNER, APP, request(C, 0, 1, "3"));
    owner.answer(0);
    assertEquals(2, owner.calls());
    var lost = new ConnectionLostException("gone", OWNER, null, null);
    var d = locator.locate(OWNER, APP, request(A, 0, 1, "4"));
    owner.answers.get(1).completeExceptionally(lost);
    for (var f : List.of(b, c)) {
      CompletionException e = assertThrows(CompletionException.class, f::join);
      assertSame(lost, e.getCause());
    }
    assertEquals(3, owner.calls(), "the call that waited went out");
    owner.answer(2);
    assertEquals(List.of("4"), mapsOf(d));
  }

  /**
   * An owner whose own bound is lower than this process's answers a prefix of a merged call: a
   * caller with every map output deferred is asked for again alone (were it answered "all
   * deferred", it would take its own request for one the owner can't answer at all); a caller
   * answered in part gets its answer and asks for the rest itself.
   */
  @Test
  void aCallerTheOwnerDeferredEntirelyInAMergedCallIsAskedForAlone() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "0"));
    var b = locator.locate(OWNER, APP, request(B, 0, 1, "1", "2"));
    var c = locator.locate(OWNER, APP, request(C, 0, 1, "3", "4"));
    owner.answer(0);
    assertEquals(List.of("1", "2", "3", "4"), owner.asked.get(1).maps());
    List<Located> prefix = new ArrayList<>();
    prefix.add(Located.local("1", "/data/1", table(0, 1)));
    for (String m : List.of("2", "3", "4")) {
      prefix.add(Located.failed(m, LocateAnswer.Status.DEFERRED, "answer full"));
    }
    owner.answers.get(1).complete(new LocateAnswer(TransportKind.TCP, OWNER, prefix));
    assertEquals(
        List.of(LocateAnswer.Status.OK, LocateAnswer.Status.DEFERRED),
        b.join().maps().stream().map(Located::status).toList());
    assertFalse(c.isDone(), "C's maps were all deferred: not C's answer");
    assertEquals(3, owner.calls());
    assertEquals(request(C, 0, 1, "3", "4"), owner.asked.get(2), "C asked again, alone");
    var d = locator.locate(OWNER, APP, request(A, 0, 1, "5"));
    owner.answer(2);
    assertEquals(List.of("3", "4"), mapsOf(c));
    assertEquals(request(A, 0, 1, "5"), owner.asked.get(3));
    owner.answer(3);
    assertEquals(List.of("5"), mapsOf(d));
  }

  @Test
  void aMergedCallRefusedAsTooLargeIsAskedForCallerByCaller() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "0"));
    var b = locator.locate(OWNER, APP, request(B, 0, 1, "1"));
    var c = locator.locate(OWNER, APP, request(C, 0, 1, "2"));
    owner.answer(0);
    owner
        .answers
        .get(1)
        .completeExceptionally(
            new CallRefusedException(CallRefusedException.TOO_LARGE, "answer too large"));
    assertEquals(3, owner.calls());
    assertEquals(request(B, 0, 1, "1"), owner.asked.get(2));
    owner.answer(2);
    assertEquals(request(C, 0, 1, "2"), owner.asked.get(3));
    owner.answer(3);
    assertEquals(List.of("1"), mapsOf(b));
    assertEquals(List.of("2"), mapsOf(c));
  }

  /** What a merged call plans for its answer grows with its span as an answer's entries do. */
  @Test
  void aPlannedEntryGrowsByAPartitionsBytes() {
    for (boolean local : new boolean[] {false, true}) {
      assertEquals(
          LocateLayout.plannedEntryBytes("123", 0, local) + 7L * LocateLayout.MAX_PARTITION_BYTES,
          LocateLayout.plannedEntryBytes("123", 7, local));
    }
  }

  @Test
  void aCallerWithoutLeasesGoesStraightToTheOwner() {
    HeldOwner owner = new HeldOwner();
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "1"));
    var none = locator.locate(OWNER, APP, new LocateRequest("7", List.of("2"), 0, 1, false, 0));
    assertEquals(2, owner.calls());
    owner.answer(1);
    assertEquals(List.of("2"), mapsOf(none));
    assertEquals(1, locator.requests());
  }

  @Test
  void aMergedCallStaysWithinOneRequestAndOneAnswer() {
    HeldOwner owner =
        new HeldOwner() {
          @Override
          public long maxRequestBytes() {
            return 200;
          }
        };
    CoalescingLocator locator = new CoalescingLocator(owner, 1);
    locator.locate(OWNER, APP, request(A, 0, 1, "0"));
    String[] many = new String[20];
    Arrays.setAll(many, i -> "1" + i);
    String[] others = new String[20];
    Arrays.setAll(others, i -> "2" + i);
    locator.locate(OWNER, APP, request(B, 0, 1, many));
    locator.locate(OWNER, APP, request(C, 0, 1, others));
    owner.answer(0);
    assertEquals(2, owner.calls(), "40 maps would pass the request bound");
    assertEquals(B, owner.asked.get(1).reader());
  }
}
