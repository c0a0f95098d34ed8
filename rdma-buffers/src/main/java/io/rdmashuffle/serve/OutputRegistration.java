/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an {@link OutputCatalog} registers a map output on demand: opens it through the {@link
 * OutputSource} (once per output at a time, however many readers ask), checks it against the bound
 * on pinned bytes, reserves room in the {@link Registrations} (evicting unleased outputs when asked
 * to, or waiting in turn for a lease to end when every one is leased), registers that very opened
 * file, retrying once after evicting when the transport refuses, and keeps it only if its
 * application is still served. A registered output whose file was truncated since is deregistered
 * instead of served. Shares the catalog's lock.
 */
final class OutputRegistration {
  private static final Logger LOG = LoggerFactory.getLogger(OutputCatalog.class);

  private final Object lock;
  private final MemoryRegistrar registrar;
  private final OutputSource source;
  private final OutputCatalog.Limits limits;
  private final Map<OutputId, CompletableFuture<Loading>> loading = new ConcurrentHashMap<>();
  private final ServingMetrics metrics;

  /** Locates waiting for room, oldest first; guarded by lock. */
  private final WaitingLine waiting;

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
      ServedApplications served,
      ServingMetrics metrics) {
    this.lock = lock;
    this.metrics = metrics;
    this.registrar = registrar;
    this.source = source;
    this.limits = limits;
    this.registered = registered;
    this.served = served;
    this.waiting = new WaitingLine(lock, limits.maxWaitingLocates(), metrics);
  }

  /**
   * The registered output, registering it; with {@code evict}, making room by evicting unleased
   * outputs, or waiting (in turn, until {@code deadline}, nanos) for a lease to end. Null when it
   * can't be registered now: it does not fit without eviction, every slot is leased or a
   * registration still in progress until the deadline, or each registration was evicted again
   * before it could be answered (the caller answers "busy, ask again"; nobody's fault).
   */
  Registered obtain(OutputId id, boolean evict, long reader, long deadline) throws IOException {
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      Registered r = lookup(id);
      if (r == null) {
        Loading l = registerOnce(id, evict, reader, deadline);
        if (l.result() == null && evict && !l.evicting()) {
          continue; // an offer's registration that did not fit: try again, evicting
        }
        r = l.result();
        if (r == null) {
          return null;
        }
      }
      if (intact(r)) {
        return r;
      }
      // deregistered (evicted) since it was looked up or registered: look again
    }
    return null;
  }

  /** The longest a locate waits for another thread's registration of the same output. */
  private static final long JOIN_WAIT_MILLIS = 100;

  /** How often {@link #obtain} looks again after finding its registration closed under it. */
  private static final int MAX_ATTEMPTS = 4;

  /** The outcome of one registration attempt of an output, shared by every thread that asked. */
  private record Loading(boolean evicting, Registered result) {}

  /**
   * Registers {@code id} unless another thread is registering it already, in which case its outcome
   * (the registration, null, or its exception) is this thread's too: one registration of an output
   * at a time, however many readers ask. A registration stays in {@code loading} until it is in
   * {@code registered} (or failed), so a thread never finds neither.
   */
  private Loading registerOnce(OutputId id, boolean evict, long reader, long deadline)
      throws IOException {
    CompletableFuture<Loading> mine = new CompletableFuture<>();
    CompletableFuture<Loading> theirs = loading.putIfAbsent(id, mine);
    if (theirs != null) {
      return await(theirs, evict, deadline);
    }
    try {
      Registered r = lookup(id);
      Loading l = new Loading(evict, r != null ? r : register(id, evict, reader, deadline));
      mine.complete(l);
      return l;
    } catch (IOException | RuntimeException | Error e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      loading.remove(id, mine);
    }
  }

  /**
   * Another thread's registration of the same output, waited for until {@code deadline} but at most
   * {@value #JOIN_WAIT_MILLIS} ms: a thread that waits here holds a call worker without being one
   * of the counted waiters, and the workers must stay free for the releases that make room. Past
   * it, the outcome is "not now" (busy).
   */
  private static Loading await(CompletableFuture<Loading> f, boolean evict, long deadline)
      throws IOException {
    long wait = Math.min(deadline - System.nanoTime(), JOIN_WAIT_MILLIS * 1_000_000L);
    try {
      return f.get(Math.max(0, wait), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return new Loading(evict, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Loading(evict, null);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    }
  }

  /** Deregisters one output, if registered. */
  void forget(OutputId id) {
    Registered r;
    synchronized (lock) {
      r = registered.remove(id);
      lock.notifyAll(); // room for waiting locates
    }
    if (r != null) {
      r.file().close();
    }
  }

  /** Deregisters {@code r} if it is still the output's registration (not a newer one). */
  private void forget(Registered r) {
    boolean removed;
    synchronized (lock) {
      removed = registered.remove(r);
      lock.notifyAll();
    }
    if (removed) {
      r.file().close();
    }
  }

  private Registered lookup(OutputId id) {
    synchronized (lock) {
      return registered.get(id);
    }
  }

  /**
   * Whether {@code r} can be answered: false when it was deregistered meanwhile (an eviction or a
   * withdrawal closed it: the caller looks again); an intact registration is true. A registered
   * output whose file was truncated since can't be served (a READ of the missing bytes would fail,
   * or worse): that registration is deregistered and reported as damaged.
   */
  private boolean intact(Registered r) throws IOException {
    if (!r.file().isOpen()) {
      return false;
    }
    long now;
    try {
      now = r.file().currentLength();
    } catch (IOException e) {
      if (!r.file().isOpen()) {
        return false; // closed between the look and the size (its channel went with it)
      }
      throw new IOException("data file " + r.file().path() + " can't be sized: " + e, e);
    }
    if (now < r.file().length()) {
      forget(r);
      throw new IOException(
          "data file "
              + r.file().path()
              + " is "
              + now
              + " bytes long now, "
              + r.file().length()
              + " when registered (truncated?)");
    }
    return true;
  }

  private Registered register(OutputId id, boolean evict, long reader, long deadline)
      throws IOException {
    OpenedOutput o = source.open(id);
    long length;
    try {
      length = o.channel().size();
      o.table().checkWithin(length);
    } catch (IOException | RuntimeException e) {
      o.close();
      throw e;
    }
    long pin = registrar.pinsMemory() ? length : 0;
    long table = o.table().heapBytes();
    String tooLarge = registered.tooLarge(length, pin, table);
    if (tooLarge != null) {
      o.close();
      throw new UnavailableException("map output " + id + tooLarge, null);
    }
    List<Registered> victims = new ArrayList<>();
    boolean reserved;
    synchronized (lock) {
      reserved =
          waiting.reserve(
              reader,
              evict,
              deadline,
              (ev, now) -> registered.reserve(id.application(), pin, table, ev, now, victims));
    }
    closeAll(victims);
    if (!reserved) {
      o.close();
      return null;
    }
    long t0 = System.nanoTime();
    RegisteredFile file;
    try {
      file = registerRetrying(id, o, length);
    } catch (IOException | RuntimeException e) {
      synchronized (lock) {
        registered.unreserve(id.application(), pin, table);
        lock.notifyAll();
      }
      throw e;
    }
    Registered r = new Registered(id, file, o.table(), pin);
    synchronized (lock) {
      if (!served.serves(id)) {
        registered.unreserve(id.application(), pin, table);
        lock.notifyAll();
        r = null;
      } else if (!registered.add(r, System.nanoTime() - t0)) {
        // never while registrations of one output are serialized; never two of it either way
        registered.unreserve(id.application(), pin, table);
        lock.notifyAll();
        Registered first = registered.get(id);
        LOG.error("{} was registered twice at once; the second registration is dropped", id);
        file.close();
        return first;
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
            o.path(), o.channel(), limits.pieceSize(), registrar, id.application());
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
    OpenedOutput again = source.open(id);
    if (!again.table().equals(table) || again.channel().size() != length) {
      again.close();
      throw new IOException("map output " + id + " changed while being registered");
    }
    return again;
  }

  /** Under the catalog's lock: locates waiting for room now (tests). */
  int waitingLocates() {
    return waiting.waiting();
  }

  private Registered evictOne() {
    synchronized (lock) {
      return registered.evictOne(System.nanoTime());
    }
  }

  /** Deregisters {@code gone} (outside the lock). */
  static void closeAll(List<Registered> gone) {
    for (Registered r : gone) {
      r.file().close();
    }
  }
}
