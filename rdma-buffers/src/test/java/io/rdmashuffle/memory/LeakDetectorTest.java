/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.CountingRegistrar;
import io.rdmashuffle.testing.Patterns;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The detector itself: it runs on in every test (LeakCheckExtension switches it on). */
@Timeout(60)
class LeakDetectorTest {
  @TempDir Path dir;
  private final CountingRegistrar registrar = new CountingRegistrar();

  @Test
  void aRegionDroppedWithoutCloseIsReportedWithWhereItWasRegistered() throws Exception {
    assertTrue(LeakDetector.isEnabled(), "the test extension switches detection on");
    long before = LeakDetector.leaksReported();
    registerAndDrop(100);
    List<LeakDetector.Leak> leaks = awaitReported(1);
    LeakDetector.Leak l = leaks.get(0);
    assertEquals(LeakDetector.Kind.REGION, l.kind());
    assertTrue(l.unreachable());
    assertTrue(l.toString().contains("registered region of 100 bytes (LOCAL_WRITE)"), l.toString());
    assertTrue(l.toString().contains("dropped without being deregistered"), l.toString());
    assertTrue(createdIn(l, "registerAndDrop"), "the report points at the registration");
    assertEquals(before + 1, LeakDetector.leaksReported(), "leaks are counted");
  }

  private void registerAndDrop(int bytes) throws Exception {
    registrar.register(
        MemoryPiece.of(DirectMemory.allocate(bytes)), Access.LOCAL_WRITE, "", () -> {});
  }

  @Test
  void aLentBufferDroppedWithoutReleaseIsReportedButAReleasedOneIsNot() throws Exception {
    BufferPool pool = new BufferPool(registrar, 4096, 65536, 65536, true);
    PooledBuffer sibling = pool.tryAllocate(10);
    RegisteredRegion chunk = sibling.region();
    sibling.release();
    lendAndDrop(pool);
    List<LeakDetector.Leak> leaks = awaitReported(1);
    assertEquals(LeakDetector.Kind.BUFFER, leaks.get(0).kind());
    assertTrue(
        leaks.get(0).toString().contains("pooled buffer of 77 bytes (capacity 4096)"),
        leaks.get(0).toString());
    assertTrue(createdIn(leaks.get(0), "lendAndDrop"));
    assertEquals(1, pool.leaks().size(), "the pool still counts it lent");
    pool.close();
    assertEquals(
        65536,
        registrar.accounting().registeredBytes(),
        "the dropped buffer's chunk can never come back: that is the leak");
    chunk.close();
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  private static void lendAndDrop(BufferPool pool) throws Exception {
    assertNotNull(pool.allocate(77, 1, TimeUnit.SECONDS));
  }

  @Test
  void aRegisteredFileDroppedWithoutCloseIsReportedWithItsPieces() throws Exception {
    Path p = Patterns.file(dir.resolve("dropped"), 3 * 4096, 1);
    openAndDrop(p);
    List<LeakDetector.Leak> leaks = awaitReported(4);
    long files = leaks.stream().filter(l -> l.kind() == LeakDetector.Kind.FILE).count();
    long regions = leaks.stream().filter(l -> l.kind() == LeakDetector.Kind.REGION).count();
    assertEquals(1, files, leaks.toString());
    assertEquals(3, regions, leaks.toString());
    assertTrue(
        leaks.stream()
            .anyMatch(
                l -> l.toString().contains("registered file dropped of " + 3 * 4096 + " bytes")),
        leaks.toString());
  }

  private void openAndDrop(Path p) throws Exception {
    RegisteredFile.open(p, 4096, registrar, "app");
  }

  @Test
  void liveResourcesAreListedUntilFreedAndAPoolsIdleChunksOnlyThroughThePool() throws Exception {
    long mark = LeakDetector.mark();
    RegisteredRegion r =
        registrar.register(
            MemoryPiece.of(DirectMemory.allocate(64)), Access.LOCAL_WRITE, "", () -> {});
    BufferPool pool = new BufferPool(registrar, 4096, 65536, 65536, false);
    PooledBuffer b = pool.tryAllocate(10);
    b.release();
    List<LeakDetector.Kind> kinds = new ArrayList<>();
    LeakDetector.liveSince(mark).forEach(l -> kinds.add(l.kind()));
    assertEquals(
        List.of(LeakDetector.Kind.REGION, LeakDetector.Kind.POOL),
        kinds,
        "the region and the open pool; the pool's registered chunk is the pool's to free");
    assertFalse(LeakDetector.liveSince(mark).get(0).unreachable());
    r.close();
    pool.close();
    assertEquals(List.of(), LeakDetector.liveSince(mark));
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  @Test
  void aDismissedResourceIsNotReportedAgainWhenDropped() throws Exception {
    long mark = LeakDetector.mark();
    registerAndDrop(200);
    List<LeakDetector.Leak> live = LeakDetector.liveSince(mark);
    assertEquals(1, live.size());
    LeakDetector.dismissSince(mark);
    assertEquals(List.of(), LeakDetector.liveSince(mark));
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(20);
    }
    assertEquals(List.of(), LeakDetector.drainReported());
  }

  /** Collects garbage until {@code n} leaks were reported; returns them (and no more). */
  private static List<LeakDetector.Leak> awaitReported(int n) throws InterruptedException {
    List<LeakDetector.Leak> out = new ArrayList<>();
    long deadline = System.currentTimeMillis() + 30_000;
    while (out.size() < n && System.currentTimeMillis() < deadline) {
      System.gc();
      Thread.sleep(20);
      out.addAll(LeakDetector.drainReported());
    }
    assertEquals(n, out.size(), "leaks reported: " + out);
    return out;
  }

  private static boolean createdIn(LeakDetector.Leak l, String method) {
    for (StackTraceElement e : l.createdAt().getStackTrace()) {
      if (e.getMethodName().equals(method)) {
        return true;
      }
    }
    return false;
  }
}
