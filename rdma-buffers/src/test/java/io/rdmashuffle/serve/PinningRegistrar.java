package io.rdmashuffle.serve;

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
 * Registers pinned memory (as verbs does) in a table, counting the regions live; refuses the next
 * {@code refusals} registrations, and takes up to {@code maxDelayMicros} for each (a slow
 * registrar: the window in which concurrent registrations of one output meet).
 */
final class PinningRegistrar implements MemoryRegistrar {
  final MemoryAccounting accounting = new MemoryAccounting();
  final AtomicInteger next = new AtomicInteger(1);
  final AtomicInteger refusals = new AtomicInteger();
  final AtomicInteger live = new AtomicInteger();
  volatile int maxDelayMicros;

  @Override
  public RegisteredRegion register(MemoryPiece piece, Access access, String owner, Runnable onFreed)
      throws RegistrationException {
    int delay = maxDelayMicros;
    if (delay > 0) {
      LockSupport.parkNanos(
          TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(delay + 1)));
    }
    if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new RegistrationException("memlock limit (test)");
    }
    int key = next.getAndIncrement();
    live.incrementAndGet();
    accounting.registered(piece.length());
    return new RegisteredRegion(piece, access, owner, (long) key << 32, key, key, onFreed) {
      @Override
      protected void withdraw() {}

      @Override
      protected void deregister() {
        live.decrementAndGet();
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
    return true;
  }
}
