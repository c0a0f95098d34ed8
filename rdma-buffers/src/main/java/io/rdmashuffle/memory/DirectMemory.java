/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Direct memory: allocation, unzeroed where the JVM allows it, and freeing at once instead of
 * waiting for the garbage collector.
 *
 * <p>Everything goes through {@code sun.misc.Unsafe} (module jdk.unsupported, open to everyone).
 * {@link #allocateUnzeroed} also needs {@code java.nio} open to this code ({@code
 * --add-opens=java.base/java.nio=ALL-UNNAMED}, which Spark gives its executors on Java 17 and
 * later), to wrap memory of its own in a {@link ByteBuffer}, as Netty's pooled allocator does;
 * without it, it falls back to {@link ByteBuffer#allocateDirect}, which zeroes. Memory allocated
 * unzeroed is not counted against {@code -XX:MaxDirectMemorySize}: the {@link BufferPool} that
 * holds it has a bound of its own.
 */
public final class DirectMemory {
  private static final Object UNSAFE;
  private static final Method INVOKE_CLEANER;
  private static final Method ALLOCATE_MEMORY;
  private static final Method FREE_MEMORY;
  private static final Method GET_LONG;
  private static final long ADDRESS_OFFSET;

  /** {@code DirectByteBuffer(long address, int|long capacity)}, or null when not accessible. */
  private static final Constructor<?> WRAP;

  /** Unzeroed allocations not yet freed, by address. */
  private static final ConcurrentHashMap<Long, Unzeroed> UNZEROED = new ConcurrentHashMap<>();

  private static final AtomicLong UNZEROED_BYTES = new AtomicLong();

  static {
    Object unsafe = null;
    Method invokeCleaner = null;
    Method allocateMemory = null;
    Method freeMemory = null;
    Method getLong = null;
    long addressOffset = -1;
    Constructor<?> wrap = null;
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
    if (unsafe != null) {
      try {
        Class<?> c = unsafe.getClass();
        allocateMemory = c.getMethod("allocateMemory", long.class);
        freeMemory = c.getMethod("freeMemory", long.class);
        getLong = c.getMethod("getLong", Object.class, long.class);
        addressOffset =
            (long)
                c.getMethod("objectFieldOffset", Field.class)
                    .invoke(unsafe, Buffer.class.getDeclaredField("address"));
        wrap = wrapConstructor(Class.forName("java.nio.DirectByteBuffer"));
      } catch (ReflectiveOperationException | RuntimeException e) {
        // java.nio is not open to us (or the JDK differs): allocateUnzeroed zeroes
        wrap = null;
      }
    }
    UNSAFE = unsafe;
    INVOKE_CLEANER = invokeCleaner;
    ALLOCATE_MEMORY = allocateMemory;
    FREE_MEMORY = freeMemory;
    GET_LONG = getLong;
    ADDRESS_OFFSET = addressOffset;
    WRAP = wrap;
  }

  /** The JNI constructor: {@code (long, int)} up to Java 20, {@code (long, long)} since. */
  private static Constructor<?> wrapConstructor(Class<?> directByteBuffer)
      throws ReflectiveOperationException {
    Constructor<?> c;
    try {
      c = directByteBuffer.getDeclaredConstructor(long.class, int.class);
    } catch (NoSuchMethodException e) {
      c = directByteBuffer.getDeclaredConstructor(long.class, long.class);
    }
    c.setAccessible(true); // InaccessibleObjectException (a RuntimeException) without the opening
    return c;
  }

  private DirectMemory() {}

  /** Allocates {@code size} bytes of direct memory, zeroed. */
  public static ByteBuffer allocate(int size) {
    return ByteBuffer.allocateDirect(size);
  }

  /** Whether {@link #allocateUnzeroed} gets memory the JDK does not zero (java.nio is open). */
  public static boolean allocatesUnzeroed() {
    return WRAP != null;
  }

  /**
   * Allocates {@code size} bytes of direct memory whose content is undefined until written: no page
   * is touched until it is written, so memory that is written later (a READ's target) costs no
   * zeroing pass, and a part never written costs nothing. Zeroed when {@link #allocatesUnzeroed()}
   * is false. Freed by {@link #free}, or by the garbage collector once unreachable.
   */
  public static ByteBuffer allocateUnzeroed(int size) {
    if (WRAP == null) {
      return allocate(size);
    }
    if (size < 0) {
      throw new IllegalArgumentException("size " + size);
    }
    long address = (long) call(ALLOCATE_MEMORY, (long) Math.max(size, 1));
    ByteBuffer buffer;
    try {
      Object capacity =
          WRAP.getParameterTypes()[1] == int.class ? (Object) size : (Object) (long) size;
      buffer = (ByteBuffer) WRAP.newInstance(address, capacity);
    } catch (ReflectiveOperationException | RuntimeException e) {
      call(FREE_MEMORY, address);
      throw new IllegalStateException("could not wrap " + size + " bytes of direct memory", e);
    }
    UNZEROED.put(
        address,
        new Unzeroed(
            new WeakReference<>(buffer),
            Holder.CLEANER.register(buffer, new Release(address, size))));
    UNZEROED_BYTES.addAndGet(size);
    return buffer;
  }

  /** Bytes allocated by {@link #allocateUnzeroed} and not yet freed (tests, metrics). */
  public static long unzeroedBytes() {
    return UNZEROED_BYTES.get();
  }

  /**
   * Frees (or unmaps) a buffer created by allocate, allocateUnzeroed or FileChannel.map; not a
   * slice.
   */
  public static void free(ByteBuffer buffer) {
    if (buffer == null || !buffer.isDirect()) {
      return;
    }
    if (WRAP != null && !UNZEROED.isEmpty()) {
      Unzeroed u = UNZEROED.get((long) call(GET_LONG, buffer, ADDRESS_OFFSET));
      if (u != null) {
        if (u.buffer.get() != buffer) {
          throw new IllegalArgumentException(
              "not the buffer that owns this memory (a slice, a duplicate, or one freed before)");
        }
        u.cleanable.clean();
        return;
      }
    }
    if (INVOKE_CLEANER == null) {
      return;
    }
    try {
      INVOKE_CLEANER.invoke(UNSAFE, buffer);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not free a direct buffer", e);
    }
  }

  private static Object call(Method m, Object... args) {
    try {
      return m.invoke(UNSAFE, args);
    } catch (ReflectiveOperationException e) {
      if (e.getCause() instanceof Error err) {
        throw err; // OutOfMemoryError from allocateMemory
      }
      throw new IllegalStateException("sun.misc.Unsafe." + m.getName() + " failed", e);
    }
  }

  /** An unzeroed allocation: the buffer that owns it (weakly) and how it is freed once. */
  private record Unzeroed(WeakReference<ByteBuffer> buffer, Cleaner.Cleanable cleanable) {}

  /** Frees an unzeroed allocation: run once, by {@link #free} or by the cleaner's thread. */
  private record Release(long address, int size) implements Runnable {
    @Override
    public void run() {
      UNZEROED.remove(address);
      call(FREE_MEMORY, address);
      UNZEROED_BYTES.addAndGet(-size);
    }
  }

  /** The cleaner's thread starts only in a process that allocates unzeroed memory. */
  private static final class Holder {
    static final Cleaner CLEANER = Cleaner.create();
  }
}
