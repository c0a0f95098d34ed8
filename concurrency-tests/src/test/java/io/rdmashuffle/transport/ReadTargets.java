/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.memory.RegistrationException;
import io.rdmashuffle.testing.CountingRegistrar;

/**
 * The READ target every test's READs land in: one registered region per test VM (jcstress makes
 * millions of states; a region each would register millions), left open until the VM exits. Posting
 * a READ retains it and ending one releases it, so the tests give back what they take.
 */
public final class ReadTargets {
  /** Bytes of the target; every READ of the tests fits. */
  public static final int LENGTH = 4096;

  private static final ReadListener NO_LISTENER =
      new ReadListener() {
        @Override
        public void onReadComplete(ReadOp op) {}

        @Override
        public void onReadFailed(ReadOp op, TransportException cause) {}
      };

  private static final RegisteredRegion SHARED = register();

  private ReadTargets() {}

  private static RegisteredRegion register() {
    try {
      return new CountingRegistrar()
          .register(
              MemoryPiece.of(DirectMemory.allocate(LENGTH)),
              Access.LOCAL_WRITE,
              "jcstress",
              () -> {});
    } catch (RegistrationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A READ of {@code length} bytes into the shared target, tagged with {@code name}. */
  public static ReadOp read(int length, String name) {
    return new ReadOp().set(0, 0, length, SHARED, 0, NO_LISTENER).attach(name);
  }

  /** Gives back the target reference a posted READ took. */
  public static void ended(ReadOp op) {
    op.target().release();
  }
}
