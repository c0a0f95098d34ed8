/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class DirectMemoryTest {
  private static final int SIZE = 3 << 20;

  @BeforeEach
  void unzeroed() {
    assertTrue(DirectMemory.allocatesUnzeroed(), "this module's tests open java.nio");
  }

  @Test
  void anUnzeroedBufferHoldsWhatIsWrittenAndIsFreedOnce() {
    long before = DirectMemory.unzeroedBytes();
    ByteBuffer b = DirectMemory.allocateUnzeroed(SIZE);
    assertTrue(b.isDirect());
    assertEquals(SIZE, b.capacity());
    assertEquals(SIZE, b.limit());
    assertEquals(before + SIZE, DirectMemory.unzeroedBytes());
    for (int i = 0; i < SIZE; i += 8) {
      b.putLong(i, i * 31L);
    }
    for (int i = 0; i < SIZE; i += 8) {
      assertEquals(i * 31L, b.getLong(i));
    }
    ByteBuffer slice = b.slice(4096, 4096);
    assertEquals(4096 * 31L, slice.getLong(0), "a slice sees the same memory");
    assertThrows(
        IllegalArgumentException.class,
        () -> DirectMemory.free(b.duplicate()),
        "a duplicate has the owner's address but does not own the memory");
    assertEquals(before + SIZE, DirectMemory.unzeroedBytes());
    DirectMemory.free(b);
    assertEquals(before, DirectMemory.unzeroedBytes());
  }

  @Test
  void anUnzeroedBufferNobodyFreesIsFreedWhenUnreachable() throws InterruptedException {
    long before = DirectMemory.unzeroedBytes();
    allocateAndDrop();
    assertEquals(before + SIZE, DirectMemory.unzeroedBytes());
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (DirectMemory.unzeroedBytes() > before && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    assertEquals(before, DirectMemory.unzeroedBytes(), "freed by the cleaner once unreachable");
  }

  private static void allocateAndDrop() {
    DirectMemory.allocateUnzeroed(SIZE).put(0, (byte) 1);
  }

  @Test
  void anEmptyBufferIsAllowed() {
    ByteBuffer b = DirectMemory.allocateUnzeroed(0);
    assertEquals(0, b.capacity());
    DirectMemory.free(b);
  }
}
