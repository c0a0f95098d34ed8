/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.serve.Registrations.Registered;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The map outputs one process serves to one-sided READs: a Spark executor's own, or every
 * application's on a NodeManager. The engine-neutral serving core; engines only tell it where
 * outputs are ({@link OutputSource}) and which applications are admitted.
 *
 * <ul>
 *   <li><b>Admission.</b> An application's outputs are served while it is admitted: its secret is
 *       known to the transport from {@link #admit} to {@link #withdraw}, which also deregisters its
 *       outputs and tells the transport to drop its connections.
 *   <li><b>Registration, bounded.</b> An output is registered when first asked for ({@link
 *       #locate}), or at commit when room allows ({@link #offer}). At most {@code maxOpenOutputs}
 *       are registered (each holds an open file and its mappings) and at most {@code
 *       maxPinnedBytes} of them pinned (verbs without on-demand paging); beyond either, the least
 *       recently asked-for outputs are deregistered first. A reader still READing one gets a remote
 *       access error and asks again.
 *   <li><b>Exactly the checked file.</b> The source opens and checks each data file once; that open
 *       file is what gets registered.
 * </ul>
 *
 * <p>Which applications are served is kept by {@link ServedApplications}, what is registered by
 * {@link Registrations}, and how an output gets registered is {@link OutputRegistration}'s; all
 * three are guarded by this catalog's lock. Thread-safe; one per serving process, closed with it.
 */
public final class OutputCatalog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutputCatalog.class);

  /**
   * The bounds of what stays registered, and how locates share them.
   *
   * @param maxOpenOutputs registered outputs at once (each an open file and its mappings)
   * @param maxOpenOutputsPerApplication registered outputs of one application while others have
   *     some too (a shared server)
   * @param maxPinnedBytes registered bytes pinned in RAM
   * @param maxTableBytes heap the partition tables of registered outputs take
   * @param pieceSize the largest mapping of a file
   * @param leaseNanos how long a located output stays leased to its reader unless released
   * @param locateWaitNanos how long a locate waits for room (every output leased) before "busy"
   * @param maxWaitingLocates locates that may wait at once; more are answered "busy" at once
   */
  public record Limits(
      int maxOpenOutputs,
      int maxOpenOutputsPerApplication,
      long maxPinnedBytes,
      long maxTableBytes,
      long pieceSize,
      long leaseNanos,
      long locateWaitNanos,
      int maxWaitingLocates) {
    public Limits {
      if (maxOpenOutputs < 1
          || maxOpenOutputsPerApplication < 1
          || maxOpenOutputsPerApplication > maxOpenOutputs
          || maxPinnedBytes < 0
          || maxTableBytes < 0
          || pieceSize <= 0
          || leaseNanos <= 0
          || locateWaitNanos < 0
          || maxWaitingLocates < 0) {
        throw new IllegalArgumentException(
            "maxOpenOutputs="
                + maxOpenOutputs
                + ", maxOpenOutputsPerApplication="
                + maxOpenOutputsPerApplication
                + ", maxPinnedBytes="
                + maxPinnedBytes
                + ", maxTableBytes="
                + maxTableBytes
                + ", pieceSize="
                + pieceSize
                + ", leaseNanos="
                + leaseNanos
                + ", locateWaitNanos="
                + locateWaitNanos
                + ", maxWaitingLocates="
                + maxWaitingLocates
                + ": out of range");
      }
    }

    /**
     * Bounds on outputs and pinned bytes, with the lease and wait defaults of a server of one
     * application (tests, tools): no bound on table bytes, a 60 s lease, no waiting.
     */
    public Limits(int maxOpenOutputs, long maxPinnedBytes, long pieceSize) {
      this(
          maxOpenOutputs,
          maxOpenOutputs,
          maxPinnedBytes,
          Long.MAX_VALUE,
          pieceSize,
          60_000_000_000L,
          0,
          0);
    }
  }

  /** What a local reader needs: the data file and where its partitions lie. */
  public record Described(java.nio.file.Path path, long length, PartitionTable table) {}

  private final OutputSource source;
  private final Limits limits;
  private final Consumer<String> onWithdraw;
  private final ServingMetrics metrics = new ServingMetrics();
  // guarded by this
  private final Registrations registered;
  private final ServedApplications served;
  private final OutputRegistration registration;

  /**
   * @param secrets the transport's application secrets, kept in step with admission
   * @param onWithdraw told when an application is withdrawn (the transport drops its peers)
   */
  public OutputCatalog(
      MemoryRegistrar registrar,
      OutputSource source,
      Limits limits,
      ApplicationSecrets secrets,
      Consumer<String> onWithdraw) {
    this.source = source;
    this.limits = limits;
    this.onWithdraw = onWithdraw;
    this.registered = new Registrations(limits, metrics);
    this.served = new ServedApplications(secrets);
    this.registration =
        new OutputRegistration(this, registrar, source, limits, registered, served, metrics);
  }

  public ServingMetrics metrics() {
    return metrics;
  }

  public Limits limits() {
    return limits;
  }

  // ------------------------------------------------------------------ applications

  /** Serves {@code application}'s outputs to peers proving {@code secret}. Idempotent. */
  public synchronized void admit(String application, byte[] secret) {
    served.admit(application, secret);
  }

  public synchronized boolean isAdmitted(String application) {
    return served.isAdmitted(application);
  }

  /**
   * Stops serving {@code application}: forgets its secret, deregisters its outputs (READs in flight
   * end; the memory goes after them), and tells the transport. Idempotent.
   */
  public void withdraw(String application) {
    List<Registered> gone;
    synchronized (this) {
      served.withdraw(application);
      gone = registered.removeWhere(id -> id.application().equals(application));
      notifyAll(); // room for waiting locates
    }
    OutputRegistration.closeAll(gone);
    onWithdraw.accept(application);
    if (!gone.isEmpty()) {
      LOG.info("deregistered {} map outputs of {}, which ended", gone.size(), application);
    }
  }

  /** Deregisters a shuffle's outputs; later registrations of it are dropped. */
  public void forgetShuffle(String application, String shuffle) {
    List<Registered> gone;
    synchronized (this) {
      served.forgetShuffle(application, shuffle);
      gone =
          registered.removeWhere(
              id -> id.application().equals(application) && id.shuffle().equals(shuffle));
      notifyAll();
    }
    OutputRegistration.closeAll(gone);
  }

  /**
   * An output was committed (published) here: where its shuffle was removed, the shuffle runs again
   * under the same id (Spark recomputes a shuffle removed while its dependency lives), and its
   * registrations are kept again. The removed run's outputs are unpublished: they stay gone.
   */
  public synchronized void committed(OutputId id) {
    served.shuffleRunsAgain(id.application(), id.shuffle());
  }

  /** Deregisters one output (it is being replaced, or was lost). */
  public void forget(OutputId id) {
    registration.forget(id);
  }

  // ------------------------------------------------------------------ serving

  /**
   * Registers {@code id} now if that needs no eviction (a Spark map output at commit, so its first
   * reader doesn't wait for the registration). Returns whether it is registered.
   */
  public boolean offer(OutputId id) {
    try {
      return registration.obtain(id, false, 0, System.nanoTime()) != null;
    } catch (IOException | RuntimeException e) {
      LOG.debug("{} not registered at commit: {}", id, e.toString());
      return false;
    }
  }

  /**
   * Where to READ partitions {@code [start, end)} of {@code id}, registering it if needed (and
   * leasing it to {@code reader}: it stays registered until the reader releases it or the lease
   * times out); with {@code local}, where its file is instead (the reader is on this host). When
   * every output that could make room is leased, it waits in turn for room until {@code deadline}
   * (nanos), then answers busy. Never throws: a problem is the answer's status, with a message.
   */
  public Located locate(
      OutputId id, int start, int end, boolean local, long reader, long deadline) {
    Located answer = locateOrExplain(id, start, end, local, reader, limits.leaseNanos(), deadline);
    metrics.answered(answer.status());
    return answer;
  }

  /**
   * {@link #locate(OutputId, int, int, boolean, long, long)} without a lease and without waiting
   * for room: what it answers may be evicted for the next output asked for (tools, tests).
   */
  public Located locate(OutputId id, int start, int end, boolean local) {
    Located answer = locateOrExplain(id, start, end, local, 0, 0, System.nanoTime());
    metrics.answered(answer.status());
    return answer;
  }

  /** Ends {@code reader}'s leases of the outputs {@code request} names. */
  public synchronized void release(String application, ReleaseRequest request) {
    int ended = 0;
    for (int i = 0; i < request.maps().size(); i++) {
      if (registered.release(request.id(application, i), request.reader())) {
        ended++;
      }
    }
    if (ended > 0) {
      metrics.released(ended);
      notifyAll(); // room for waiting locates
    }
  }

  private Located locateOrExplain(
      OutputId id, int start, int end, boolean local, long reader, long leaseNanos, long deadline) {
    if (!isAdmitted(id.application())) {
      return Located.failed(
          id.map(), Status.REFUSED, "application " + id.application() + " is not served here");
    }
    try {
      if (local) {
        Described d = describe(id);
        return Located.local(id.map(), d.path().toString(), slice(d.table(), start, end));
      }
      Registered r = leased(id, reader, leaseNanos, deadline);
      if (r == null) {
        return Located.failed(
            id.map(),
            Status.BUSY,
            "every registration this server may hold is leased to a reader or being made ("
                + fullness(id.application())
                + "): ask again");
      }
      return Located.ok(id.map(), r.file().descriptor(), slice(r.table(), start, end));
    } catch (NoSuchFileException e) {
      return Located.failed(id.map(), Status.NOT_FOUND, "no map output " + id + " here");
    } catch (RefusedException e) {
      LOG.warn("refused map output {}: {}", id, e.getMessage());
      return Located.failed(id.map(), Status.REFUSED, e.getMessage());
    } catch (UnavailableException e) {
      if (e.getCause() instanceof AccessDeniedException && firstDenial(id.application())) {
        LOG.warn("{} can't be served (logged once per application): {}", id, e.getMessage());
      }
      return Located.failed(id.map(), Status.UNAVAILABLE, e.getMessage());
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn("map output {} can't be served: {}", id, e.toString());
      return Located.failed(id.map(), Status.FAILED, "map output " + id + " can't be read: " + e);
    } catch (RuntimeException e) {
      // a defect of this server, not of the output: the reader asks again or elsewhere
      LOG.error("locating map output {} failed", id, e);
      return Located.failed(
          id.map(), Status.UNAVAILABLE, "this server failed to locate " + id + ": " + e);
    }
  }

  /**
   * The registration of {@code id}, leased to {@code reader} for {@code leaseNanos} (0: not
   * leased); null when it can't be had by the deadline (or was evicted again each time before the
   * lease could be taken).
   */
  private Registered leased(OutputId id, long reader, long leaseNanos, long deadline)
      throws IOException {
    for (int attempt = 0; attempt < 4; attempt++) {
      Registered r = registration.obtain(id, true, reader, deadline);
      if (r == null || leaseNanos == 0) {
        return r;
      }
      synchronized (this) {
        if (registered.lease(r, reader, System.nanoTime() + leaseNanos)) {
          return r;
        }
      }
    }
    return null;
  }

  private synchronized String fullness(String application) {
    return registered.fullness(application);
  }

  private synchronized boolean firstDenial(String application) {
    return served.firstDenial(application);
  }

  private static PartitionTable slice(PartitionTable t, int start, int end)
      throws RefusedException {
    if (end > t.end()) {
      throw new RefusedException(
          "partitions [" + start + ", " + end + "): the map output has " + t.end());
    }
    return t.slice(start, end);
  }

  /**
   * The data file and partition table of {@code id}, without registering it (for readers in this
   * process or on this host, which read the file themselves).
   */
  public Described describe(OutputId id) throws IOException {
    synchronized (this) {
      Registered r = registered.get(id);
      if (r != null) {
        return new Described(r.file().path(), r.file().length(), r.table());
      }
    }
    try (OpenedOutput o = source.open(id)) {
      long length = o.channel().size();
      o.table().checkWithin(length);
      return new Described(o.path(), length, o.table());
    }
  }

  /** Map outputs registered now. */
  public synchronized int registeredOutputs() {
    return registered.size();
  }

  /** Locates waiting for room now (tests). */
  synchronized int waitingLocates() {
    return registration.waitingLocates();
  }

  /** Deregisters everything and forgets every application. Idempotent. */
  @Override
  public void close() {
    List<Registered> all;
    synchronized (this) {
      served.close();
      all = registered.removeWhere(id -> true);
      notifyAll();
    }
    OutputRegistration.closeAll(all);
  }
}
