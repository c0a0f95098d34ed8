package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.memory.RegistrationException;
import io.rdmashuffle.serve.Registrations.Registered;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an {@link OutputCatalog} registers a map output on demand: opens it through the {@link
 * OutputSource} (once per output at a time, however many readers ask), checks it against the bound
 * on pinned bytes, reserves room in the {@link Registrations} (evicting the least recently used
 * when asked to), registers that very opened file, retrying once after evicting when the transport
 * refuses, and keeps it only if its application is still served. A registered output whose file was
 * truncated since is deregistered instead of served. Shares the catalog's lock.
 */
final class OutputRegistration {
  private static final Logger LOG = LoggerFactory.getLogger(OutputCatalog.class);

  private final Object lock;
  private final MemoryRegistrar registrar;
  private final OutputSource source;
  private final OutputCatalog.Limits limits;
  private final Map<OutputId, Object> loading = new ConcurrentHashMap<>();

  // guarded by lock
  private final Registrations registered;
  private final ServedApplications served;

  /**
   * @param lock the catalog's lock, which guards {@code registered} and {@code served}
   */
  OutputRegistration(
      Object lock,
      MemoryRegistrar registrar,
      OutputSource source,
      OutputCatalog.Limits limits,
      Registrations registered,
      ServedApplications served) {
    this.lock = lock;
    this.registrar = registrar;
    this.source = source;
    this.limits = limits;
    this.registered = registered;
    this.served = served;
  }

  /**
   * The registered output, registering it; with {@code evict}, making room by evicting. Null when
   * it does not fit without eviction.
   */
  Registered obtain(OutputId id, boolean evict) throws IOException {
    Registered r = lookup(id);
    if (r != null) {
      checkIntact(r);
      return r;
    }
    Object once = loading.computeIfAbsent(id, k -> new Object());
    try {
      synchronized (once) {
        r = lookup(id);
        return r != null ? r : register(id, evict);
      }
    } finally {
      loading.remove(id, once);
    }
  }

  /** Deregisters one output, if registered. */
  void forget(OutputId id) {
    Registered r;
    synchronized (lock) {
      r = registered.remove(id);
    }
    if (r != null) {
      r.file().close();
    }
  }

  private Registered lookup(OutputId id) {
    synchronized (lock) {
      return registered.get(id);
    }
  }

  /**
   * A registered output whose file was truncated since can't be served (a READ of the missing bytes
   * would fail, or worse): it is deregistered and reported as damaged.
   */
  private void checkIntact(Registered r) throws IOException {
    long now;
    try {
      now = r.file().currentLength();
    } catch (IOException e) {
      now = -1;
    }
    if (now < r.file().length()) {
      forget(r.id());
      throw new IOException(
          "data file "
              + r.file().path()
              + " is "
              + now
              + " bytes long now, "
              + r.file().length()
              + " when registered (truncated?)");
    }
  }

  private Registered register(OutputId id, boolean evict) throws IOException {
    OpenedOutput o = source.open(id, registrar.needsWritableMappings());
    long length;
    try {
      length = o.channel().size();
      o.table().checkWithin(length);
    } catch (IOException | RuntimeException e) {
      o.close();
      throw e;
    }
    long pin = registrar.pinsMemory() ? length : 0;
    if (pin > limits.maxPinnedBytes()) {
      o.close();
      throw new UnavailableException(
          "map output "
              + id
              + " of "
              + length
              + " bytes exceeds the bound on pinned bytes ("
              + limits.maxPinnedBytes()
              + ")",
          null);
    }
    List<Registered> victims = new ArrayList<>();
    synchronized (lock) {
      if (!registered.reserve(pin, evict, victims)) {
        o.close();
        return null;
      }
    }
    closeAll(victims);
    long t0 = System.nanoTime();
    RegisteredFile file;
    try {
      file = registerRetrying(id, o, length);
    } catch (IOException | RuntimeException e) {
      synchronized (lock) {
        registered.unreserve(pin);
      }
      throw e;
    }
    Registered r = new Registered(id, file, o.table(), pin);
    synchronized (lock) {
      if (!served.serves(id)) {
        registered.unreserve(pin);
        r = null;
      } else {
        registered.add(r, System.nanoTime() - t0);
      }
    }
    if (r == null) {
      file.close();
      throw new RefusedException(
          "application "
              + id.application()
              + " is no longer served here (or the shuffle was removed)");
    }
    return r;
  }

  /**
   * Registers the opened output; when the transport refuses (memlock, device), deregisters the
   * least recently used output and tries once more, then gives up as unavailable.
   */
  private RegisteredFile registerRetrying(OutputId id, OpenedOutput opened, long length)
      throws IOException {
    OpenedOutput o = opened;
    for (int attempt = 0; ; attempt++) {
      try {
        return RegisteredFile.register(
            o.path(),
            o.channel(),
            registrar.needsWritableMappings(),
            limits.pieceSize(),
            registrar,
            id.application());
      } catch (RegistrationException e) {
        // the failed attempt closed the channel
        Registered victim = attempt == 0 ? evictOne() : null;
        if (victim == null) {
          throw new UnavailableException(
              "map output " + id + " could not be registered: " + e.getMessage(), e);
        }
        victim.file().close();
        LOG.info(
            "registering {} failed ({}); deregistered {} and trying again",
            id,
            e.getMessage(),
            victim.id());
        o = reopen(id, o.table(), length);
      }
    }
  }

  /** Opens an output again, the same checked way; it must not have changed meanwhile. */
  private OpenedOutput reopen(OutputId id, PartitionTable table, long length) throws IOException {
    OpenedOutput again = source.open(id, registrar.needsWritableMappings());
    if (!again.table().equals(table) || again.channel().size() != length) {
      again.close();
      throw new IOException("map output " + id + " changed while being registered");
    }
    return again;
  }

  private Registered evictOne() {
    synchronized (lock) {
      return registered.evictOne();
    }
  }

  /** Deregisters {@code gone} (outside the lock). */
  static void closeAll(List<Registered> gone) {
    for (Registered r : gone) {
      r.file().close();
    }
  }
}
