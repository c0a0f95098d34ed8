/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.transport.ConnectionPool;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a task's segment fetcher schedules its READs, against a transport whose READs complete only
 * when the test says: the window counts bytes on the wire (not the blocks the consumer holds, which
 * have a budget of their own), owners take turns and none gets more than its share while others
 * wait, and a fetcher driven without waiting never blocks for a connection being opened.
 */
@Timeout(30)
class FetchSchedulingTest {
  private static final String APP = "app-scheduling";
  private static final int SEG = 64 * 1024;
  private final PeerAddress a = new PeerAddress("198.18.0.2", 7001);
  private final PeerAddress b = new PeerAddress("198.18.0.3", 7001);

  @TempDir Path dir;
  private final FakeReadTransport transport = new FakeReadTransport();
  private BufferPool pool;
  private ConnectionPool connections;
  private RegisteredFile file;
  private final List<FetchedSegment> held = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    pool = new BufferPool(transport.registrar, 4096, 1 << 20, 64 << 20, true);
    connections = new ConnectionPool(transport, 1);
    file =
        RegisteredFile.open(
            Patterns.file(dir.resolve("data"), 32L * SEG, 5), SEG, transport.registrar, APP);
  }

  @AfterEach
  void stop() {
    held.forEach(FetchedSegment::release);
    for (ReadOp op : transport.posted()) {
      transport.complete(op);
    }
    connections.close();
    file.close();
    assertEquals(List.of(), pool.leaks());
    pool.close();
  }

  private SegmentRequest request(PeerAddress peer, int i) {
    return new SegmentRequest(peer, APP, file.descriptor(), (long) i * SEG, SEG, peer + "#" + i);
  }

  /** Takes every result the fetcher has now, holding the segments (the consumer reads them). */
  private int takeAll(SegmentFetcher f) {
    int n = 0;
    for (SegmentFetcher.Result r = f.poll(); r != null; r = f.poll()) {
      held.add(assertInstanceOf(FetchedSegment.class, r));
      n++;
    }
    return n;
  }

  private void completeAll(List<ReadOp> ops) {
    ops.forEach(transport::complete);
  }

  @Test
  void theWindowCountsReadsOnTheWireNotBlocksTheConsumerHolds() throws Exception {
    connections.channel(a, APP); // opened ahead: this test is about the bounds only
    SegmentLimits limits = new SegmentLimits(4L * SEG, 8L * SEG, 100, 4L * SEG, 1000, 0, 0);
    try (SegmentFetcher f = new SegmentFetcher(connections, pool, limits, () -> {})) {
      for (int i = 0; i < 12; i++) {
        f.add(request(a, i));
      }
      assertNull(f.poll());
      assertEquals(4, transport.posted().size(), "a window of READs on the wire");
      completeAll(transport.posted());
      assertEquals(4, takeAll(f), "the four arrived and the consumer holds them");
      assertEquals(
          4,
          transport.posted().size(),
          "the window is free again while the consumer holds what arrived");
      completeAll(transport.posted());
      assertEquals(4, takeAll(f));
      assertEquals(0, transport.posted().size(), "the consumer holds its whole budget");
      assertEquals(8L * SEG, f.bytesHeld());
      held.remove(0).release();
      held.remove(0).release();
      assertNull(f.poll());
      assertEquals(2, transport.posted().size(), "what the consumer released is READ again");
    }
  }

  @Test
  void ownersTakeTurnsAndNoneGetsMoreThanItsShareWhileOthersWait() throws Exception {
    connections.channel(a, APP);
    connections.channel(b, APP);
    SegmentLimits limits = new SegmentLimits(10L * SEG, 20L * SEG, 100, 2L * SEG, 1000, 0, 0);
    try (SegmentFetcher f = new SegmentFetcher(connections, pool, limits, () -> {})) {
      for (int i = 0; i < 8; i++) {
        f.add(request(a, i)); // every request of a before any of b: today's locate order
      }
      for (int i = 0; i < 8; i++) {
        f.add(request(b, 8 + i));
      }
      assertNull(f.poll());
      assertEquals(2, transport.postedTo(a).size(), "a's share, not the whole window");
      assertEquals(2, transport.postedTo(b).size(), "b READs beside a from the start");
      completeAll(transport.postedTo(a));
      assertEquals(2, takeAll(f));
      assertEquals(2, transport.postedTo(a).size());
      assertEquals(2, transport.postedTo(b).size());
      // once b has nothing left waiting, a alone may use the rest of the window
      for (int round = 0; round < 3; round++) {
        assertEquals(2, transport.postedTo(b).size(), "b has its share on the wire");
        assertEquals(2, transport.postedTo(a).size(), "a still waits for its two");
        completeAll(transport.postedTo(b));
        takeAll(f);
      }
      completeAll(transport.postedTo(b)); // b's last two
      takeAll(f);
      assertEquals(
          6, transport.postedTo(a).size(), "a's 4 waiting READs join its 2: nobody else waits");
    }
  }

  @Test
  void pollNeverWaitsForAConnectionBeingOpened() throws Exception {
    transport.holdConnects();
    SegmentLimits limits = SegmentLimits.single(8L * SEG, 100, 1000, 0, 0);
    try (SegmentFetcher f = new SegmentFetcher(connections, pool, limits, () -> {})) {
      f.add(request(a, 0));
      f.add(request(a, 1));
      assertNull(f.poll(), "nothing to hand over, and no waiting for the connect");
      assertEquals(0, transport.connectsMade, "the connect is still held");
      assertEquals(List.of(), transport.posted());
      transport.releaseConnects();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!f.hasEvents() && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      assertTrue(f.hasEvents(), "the opened connection is an event for the fetcher");
      assertNull(f.poll());
      assertEquals(2, transport.posted().size(), "both READs posted once the connection is open");
    }
  }
}
