/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.testing.CountingRegistrar;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class BufferPoolTest {
  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;
  private final CountingRegistrar registrar = new CountingRegistrar();
  private BufferPool pool;

  @AfterEach
  void close() {
    if (pool != null) {
      assertEquals(List.of(), pool.leaks());
      pool.close();
      assertEquals(0, registrar.accounting().registeredBytes(), "registered bytes after close");
      assertEquals(0, registrar.accounting().registeredRegions());
    }
  }

  @Test
  void buffersOfOneSizeClassShareOneRegisteredChunk() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 8 * MIB, true);
    List<PooledBuffer> bs = new ArrayList<>();
    for (int i = 0; i < 256; i++) {
      bs.add(pool.tryAllocate(3000 + i));
    }
    assertEquals(1, registrar.registrations.get(), "256 x 4k fit one 1m chunk");
    Set<Integer> offsets = new HashSet<>();
    for (PooledBuffer b : bs) {
      assertEquals(4 * KIB, b.capacity());
      assertTrue(offsets.add(b.regionOffset()), "two buffers at one offset");
      assertSame(bs.get(0).region(), b.region());
    }
    PooledBuffer extra = pool.tryAllocate(1);
    assertNotNull(extra);
    assertEquals(2, pool.chunks(), "the 257th needs a second chunk");
    bs.forEach(PooledBuffer::release);
    extra.release();
    assertEquals(2, registrar.registrations.get(), "released chunks stay registered for reuse");
  }

  @Test
  void sizesRoundUpToPowerOfTwoClassesAndBufferMemoryIsDisjoint() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 16 * MIB, true);
    PooledBuffer a = pool.tryAllocate(1);
    PooledBuffer b = pool.tryAllocate(4097);
    PooledBuffer c = pool.tryAllocate(MIB);
    assertEquals(4 * KIB, a.capacity());
    assertEquals(8 * KIB, b.capacity());
    assertEquals(MIB, c.capacity());
    assertEquals(1, a.buffer().limit());
    assertEquals(4097, b.buffer().limit());
    a.buffer().put(0, (byte) 1);
    b.buffer().put(0, (byte) 2);
    assertEquals(1, a.buffer().get(0));
    a.release();
    b.release();
    c.release();
  }

  @Test
  void aBufferLargerThanAChunkGetsItsOwnRegistrationReleasedWithIt() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 16 * MIB, true);
    PooledBuffer huge = pool.tryAllocate(3 * MIB + 1);
    assertEquals(3 * MIB + 1, huge.capacity());
    assertEquals(3 * MIB + 1, registrar.accounting().registeredBytes());
    huge.release();
    assertEquals(0, registrar.accounting().registeredBytes());
  }

  @Test
  void theBoundIsBackPressureNotACrash() throws Exception {
    pool = new BufferPool(registrar, 64 * KIB, MIB, 2 * MIB, true);
    PooledBuffer a = pool.tryAllocate(MIB);
    PooledBuffer b = pool.tryAllocate(MIB);
    assertNull(pool.tryAllocate(64 * KIB), "a third chunk would exceed the 2m bound");
    assertNull(pool.allocate(64 * KIB, 50, TimeUnit.MILLISECONDS), "waiting times out");
    assertEquals(2 * MIB, pool.registeredBytes());
    CountDownLatch waiting = new CountDownLatch(1);
    ExecutorService ex = Executors.newSingleThreadExecutor();
    try {
      Future<PooledBuffer> f =
          ex.submit(
              () -> {
                waiting.countDown();
                return pool.allocate(64 * KIB, 10, TimeUnit.SECONDS);
              });
      waiting.await();
      Thread.sleep(50);
      assertFalse(f.isDone());
      a.release();
      PooledBuffer c = f.get(10, TimeUnit.SECONDS);
      assertNotNull(c, "a release wakes a waiting allocation");
      assertEquals(
          2 * MIB, pool.registeredBytes(), "the freed chunk was re-carved, not re-registered");
      assertEquals(2, registrar.registrations.get());
      c.release();
      b.release();
    } finally {
      ex.shutdownNow();
    }
  }

  @Test
  void idleChunksAreDeregisteredToMakeRoomForALargeBuffer() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 3 * MIB, true);
    PooledBuffer small = pool.tryAllocate(4 * KIB);
    PooledBuffer other = pool.tryAllocate(8 * KIB);
    small.release();
    other.release();
    assertEquals(2 * MIB, pool.registeredBytes(), "two idle chunks kept registered");
    PooledBuffer huge = pool.tryAllocate(2 * MIB + 1);
    assertNotNull(huge);
    assertTrue(pool.registeredBytes() <= 3 * MIB);
    huge.release();
  }

  @Test
  void aRequestAboveTheBoundIsRefusedWithTheNumbers() {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 2 * MIB, true);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> pool.tryAllocate(3 * MIB));
    assertTrue(e.getMessage().contains("size=" + 3 * MIB), e.getMessage());
  }

  @Test
  void referenceCountsReturnTheBufferOnTheLastRelease() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 2 * MIB, true);
    PooledBuffer b = pool.tryAllocate(100);
    b.retain();
    assertEquals(2, b.refCnt());
    b.release();
    assertEquals(1, pool.leaks().size());
    b.release();
    assertEquals(0, pool.leaks().size());
    assertEquals(0, pool.lentBytes());
    assertThrows(IllegalStateException.class, b::release, "a double release is a bug, and says so");
    assertThrows(IllegalStateException.class, b::retain);
  }

  @Test
  void leakDetectionNamesWhereAnUnreleasedBufferWasLent() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 2 * MIB, true);
    PooledBuffer b = pool.tryAllocate(100);
    List<Throwable> leaks = pool.leaks();
    assertEquals(1, leaks.size());
    boolean here = false;
    for (StackTraceElement e : leaks.get(0).getStackTrace()) {
      here |= e.getMethodName().equals("leakDetectionNamesWhereAnUnreleasedBufferWasLent");
    }
    assertTrue(here, "the leak report points at the allocating test method");
    b.release();
  }

  @Test
  void closeWaitsForLentBuffersBeforeDeregisteringTheirChunk() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 2 * MIB, true);
    PooledBuffer lent = pool.tryAllocate(100);
    pool.tryAllocate(MIB).release();
    pool.close();
    assertEquals(MIB, registrar.accounting().registeredBytes(), "the lent buffer's chunk stays");
    lent.buffer().put(0, (byte) 7);
    lent.release();
    assertEquals(0, registrar.accounting().registeredBytes());
    assertThrows(IllegalStateException.class, () -> pool.tryAllocate(10));
    pool = null;
  }

  @Test
  void aRefusedRegistrationIsAnErrorNotANull() {
    pool = new BufferPool(registrar, 4 * KIB, MIB, 2 * MIB, true);
    registrar.refuse = true;
    assertThrows(RegistrationException.class, () -> pool.tryAllocate(10));
    assertEquals(0, pool.registeredBytes());
  }

  @Test
  void concurrentBorrowersNeverShareMemoryAndTheBoundHolds() throws Exception {
    pool = new BufferPool(registrar, 4 * KIB, 256 * KIB, 2 * MIB, true);
    int threads = 8;
    ExecutorService ex = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        final byte id = (byte) (t + 1);
        fs.add(
            ex.submit(
                () -> {
                  ThreadLocalRandom r = ThreadLocalRandom.current();
                  for (int i = 0; i < 2000; i++) {
                    int size = 1 + r.nextInt(r.nextBoolean() ? 8 * KIB : 300 * KIB);
                    PooledBuffer b = pool.allocate(size, 10, TimeUnit.SECONDS);
                    assertNotNull(b);
                    for (int k = 0; k < size; k += 512) {
                      b.buffer().put(k, id);
                    }
                    assertTrue(pool.registeredBytes() <= 2 * MIB);
                    for (int k = 0; k < size; k += 512) {
                      assertEquals(
                          id, b.buffer().get(k), "another borrower wrote into this buffer");
                    }
                    b.release();
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get(60, TimeUnit.SECONDS);
      }
      assertEquals(0, pool.lentBytes());
    } finally {
      ex.shutdownNow();
    }
  }
}
