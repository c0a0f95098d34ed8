/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One long-running process of the cluster (a Spark Master or Worker, a ResourceManager, a
 * NodeManager, the job history server) in its place. Owned by the {@link Cluster} that started it;
 * {@link #restart} is the "restart one daemon" fault.
 */
public final class Daemon {
  private final Place place;
  private final ProcessSpec spec;
  private final String clusterName;
  private volatile ProcessHandle process;

  Daemon(Place place, ProcessSpec spec, String clusterName) {
    this.place = place;
    this.spec = spec;
    this.clusterName = clusterName;
  }

  /** A daemon another process started (the command line's view of a running cluster). */
  Daemon(Place place, ProcessSpec spec, String clusterName, long pid) {
    this(place, spec, clusterName);
    this.process = ProcessHandle.of(pid).orElse(null);
  }

  void start() {
    process = Launcher.start(place, spec, clusterName).toHandle();
  }

  public String name() {
    return spec.name();
  }

  public Place place() {
    return place;
  }

  public ProcessSpec spec() {
    return spec;
  }

  /** The process id, or -1 when it never ran. */
  public long pid() {
    ProcessHandle p = process;
    return p == null ? -1 : p.pid();
  }

  public boolean alive() {
    ProcessHandle p = process;
    return p != null && p.isAlive();
  }

  /** Its memory now (resident set, bytes), if it runs. */
  public Optional<Long> residentBytes() {
    try {
      for (String l :
          java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + pid() + "/status"))) {
        if (l.startsWith("VmRSS:")) {
          return Optional.of(Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024);
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /**
   * Stops it: SIGTERM, {@code graceMillis} to exit, then SIGKILL. Its children (executors,
   * containers) are its own business, as on a real host.
   */
  public void stop(long graceMillis) {
    ProcessHandle p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      try {
        p.onExit().get(graceMillis, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        p.destroyForcibly();
        p.onExit().get(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(this + " does not exit", e);
    }
  }

  /** Stops it as {@link #stop} does and starts it again with the same command; log appended. */
  public void restart(long graceMillis) {
    stop(graceMillis);
    start();
  }

  @Override
  public String toString() {
    return place.name() + "/" + spec.name() + (alive() ? " pid " + pid() : " (not running)");
  }
}
