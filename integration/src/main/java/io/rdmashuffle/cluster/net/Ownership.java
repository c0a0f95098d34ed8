/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * Who owns the one harness cluster this machine can hold (its names and addresses are fixed), in
 * {@code /run/rdma-shuffle-cluster.owner}: the owning process (a test JVM, or {@code cluster up}
 * while it starts one) and whether the cluster was left running on purpose ({@code detached}, by
 * {@code cluster up}). A start refuses while a live owner or a detached cluster exists and clears
 * the leftovers of a dead owner.
 */
public final class Ownership {
  static final Path FILE = Path.of("/run/rdma-shuffle-cluster.owner");
  static final Path LOCK = Path.of("/run/rdma-shuffle-cluster.lock");

  private Ownership() {}

  /** What the owner file says. */
  public record Owner(long pid, String startedAt, String workDir, boolean detached) {
    boolean alive() {
      Optional<ProcessHandle> h = ProcessHandle.of(pid);
      return h.isPresent()
          && h.get().info().startInstant().map(Instant::toString).orElse("").equals(startedAt);
    }

    @Override
    public String toString() {
      return (detached
              ? "a cluster left running by `integration/bin/cluster up`"
              : "process " + pid)
          + " (work dir "
          + workDir
          + ")";
    }
  }

  /**
   * Makes this process the owner, after removing the leftovers of a dead owner.
   *
   * @throws IllegalStateException when a live owner or a detached cluster exists
   */
  public static void claim(Path workDir) {
    locked(
        () -> {
          Optional<Owner> o = read();
          // this very process counts too: one cluster at a time, also within one JVM
          if (o.isPresent() && (o.get().detached() || o.get().alive())) {
            throw new IllegalStateException(
                "a harness cluster is running on this machine, owned by "
                    + o.get()
                    + "; `integration/bin/cluster down` removes it");
          }
          Teardown.all();
          write(
              new Owner(
                  ProcessHandle.current().pid(),
                  startOf(ProcessHandle.current()),
                  workDir.toString(),
                  false));
        });
  }

  /** Marks the cluster as left running on purpose (after {@code cluster up}). */
  public static void detach() {
    locked(
        () -> read().ifPresent(o -> write(new Owner(o.pid(), o.startedAt(), o.workDir(), true))));
  }

  /** The owner, if any. */
  public static Optional<Owner> owner() {
    return read();
  }

  /** Forgets the owner (after a tear-down). */
  public static void release() {
    locked(
        () -> {
          try {
            Files.deleteIfExists(FILE);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static String startOf(ProcessHandle h) {
    return h.info().startInstant().map(Instant::toString).orElse("");
  }

  private static Optional<Owner> read() {
    if (!Files.exists(FILE)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(FILE)) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + FILE, e);
    }
    return Optional.of(
        new Owner(
            Long.parseLong(p.getProperty("pid", "-1")),
            p.getProperty("startedAt", ""),
            p.getProperty("workDir", "?"),
            Boolean.parseBoolean(p.getProperty("detached", "false"))));
  }

  private static void write(Owner o) {
    Properties p = new Properties();
    p.setProperty("pid", Long.toString(o.pid()));
    p.setProperty("startedAt", o.startedAt());
    p.setProperty("workDir", o.workDir());
    p.setProperty("detached", Boolean.toString(o.detached()));
    try (OutputStream out = Files.newOutputStream(FILE)) {
      p.store(out, "rdma-shuffle cluster harness: the cluster's owner");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + FILE, e);
    }
  }

  private static void locked(Runnable r) {
    try (FileChannel ch =
        FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock lock = ch.lock(); // released when the channel closes
      r.run();
      lock.release();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + LOCK, e);
    }
  }
}
