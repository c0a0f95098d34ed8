/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;

/**
 * Frees direct and mapped buffers at once instead of waiting for the garbage collector, through
 * {@code sun.misc.Unsafe.invokeCleaner} (module jdk.unsupported, open to everyone). Only ever
 * called on a buffer whose registration is gone and that nothing else references.
 */
public final class DirectMemory {
  private static final Object UNSAFE;
  private static final Method INVOKE_CLEANER;

  static {
    Object unsafe = null;
    Method invokeCleaner = null;
    try {
      Class<?> c = Class.forName("sun.misc.Unsafe");
      Field f = c.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      unsafe = f.get(null);
      invokeCleaner = c.getMethod("invokeCleaner", ByteBuffer.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // without it, buffers are freed by the garbage collector; nothing else changes
      unsafe = null;
      invokeCleaner = null;
    }
    UNSAFE = unsafe;
    INVOKE_CLEANER = invokeCleaner;
  }

  private DirectMemory() {}

  /** Allocates {@code size} bytes of direct memory. */
  public static ByteBuffer allocate(int size) {
    return ByteBuffer.allocateDirect(size);
  }

  /** Frees (or unmaps) a buffer created by allocateDirect or FileChannel.map; not a slice. */
  public static void free(ByteBuffer buffer) {
    if (INVOKE_CLEANER == null || buffer == null || !buffer.isDirect()) {
      return;
    }
    try {
      INVOKE_CLEANER.invoke(UNSAFE, buffer);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not free a direct buffer", e);
    }
  }
}
