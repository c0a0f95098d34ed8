package io.rdmashuffle.testing;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.memory.RegistrationException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A registrar without a transport, for memory tests: counts registrations and deregistrations and
 * can be told to refuse, as a NIC does at its memlock limit.
 */
public final class CountingRegistrar implements MemoryRegistrar {
  private final MemoryAccounting accounting = new MemoryAccounting();
  private final AtomicInteger next = new AtomicInteger(1);
  public final AtomicInteger registrations = new AtomicInteger();
  public final AtomicInteger deregistrations = new AtomicInteger();
  public volatile boolean refuse;

  @Override
  public RegisteredRegion register(MemoryPiece piece, Access access, String owner, Runnable onFreed)
      throws RegistrationException {
    if (refuse) {
      throw new RegistrationException("refused for the test");
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
}
