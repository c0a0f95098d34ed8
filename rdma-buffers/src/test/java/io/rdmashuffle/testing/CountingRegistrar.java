/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.memory.RegistrationException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A registrar without a transport, for memory and serving tests: counts registrations and
 * deregistrations, can be told to refuse (always, or the next {@code refusals} times), as a NIC
 * does at its memlock limit, and to take up to {@code maxDelayMicros} per registration (a slow
 * registrar: the window in which concurrent registrations meet). Made with {@code pinsMemory}, it
 * says it pins what it registers, as verbs does without on-demand paging.
 */
public final class CountingRegistrar implements MemoryRegistrar {
  private final MemoryAccounting accounting = new MemoryAccounting();
  private final AtomicInteger next = new AtomicInteger(1);
  private final boolean pins;
  public final AtomicInteger registrations = new AtomicInteger();
  public final AtomicInteger deregistrations = new AtomicInteger();
  public final AtomicInteger refusals = new AtomicInteger();
  public volatile boolean refuse;
  public volatile int maxDelayMicros;

  public CountingRegistrar() {
    this(false);
  }

  public CountingRegistrar(boolean pinsMemory) {
    this.pins = pinsMemory;
  }

  /** Regions registered and not deregistered yet. */
  public int live() {
    return registrations.get() - deregistrations.get();
  }

  @Override
  public RegisteredRegion register(MemoryPiece piece, Access access, String owner, Runnable onFreed)
      throws RegistrationException {
    int delay = maxDelayMicros;
    if (delay > 0) {
      LockSupport.parkNanos(
          TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(delay + 1)));
    }
    if (refuse || refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new RegistrationException("memlock limit (refused for the test)");
    }
    int key = next.getAndIncrement();
    registrations.incrementAndGet();
    accounting.registered(piece.length());
    return new RegisteredRegion(piece, access, owner, (long) key << 32, key, key, onFreed) {
      @Override
      protected void withdraw() {}

      @Override
      protected void deregister() {
        deregistrations.incrementAndGet();
        accounting.deregistered(piece.length());
      }
    };
  }

  @Override
  public MemoryAccounting accounting() {
    return accounting;
  }

  @Override
  public boolean pinsMemory() {
    return pins;
  }
}
