/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The files through which {@link NetworkPathApp} (the driver) and the runner's {@link
 * ServingCpuProbe} meet at the boundaries of the measured job, in the run's output folder: the
 * driver writes {@code <name>} (its content: the application id) and, for a {@link #awaitAck
 * handshake}, waits for {@code <name>.ack}, which the runner writes once it has sampled the
 * executors. Files appear atomically (written aside, then moved).
 */
final class Markers {
  /** Executors registered, before the job: the runner samples, then acks. */
  static final String READY = "ready";

  /** The reduce stage was submitted (from the listener; no ack, the stage must not wait). */
  static final String REDUCE_STARTED = "reduce-started";

  /** The job ended: the runner samples, then acks; the driver stops its context only then. */
  static final String DONE = "done";

  private final Path dir;

  Markers(Path dir) {
    this.dir = dir;
  }

  void put(String name, String content) {
    try {
      Path tmp = dir.resolve("." + name + ".tmp");
      Files.writeString(tmp, content);
      Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write marker " + name + " in " + dir, e);
    }
  }

  /** The marker's content, or null while it does not exist. */
  String get(String name) {
    try {
      Path p = dir.resolve(name);
      return Files.exists(p) ? Files.readString(p).trim() : null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void ack(String name) {
    put(name + ".ack", "");
  }

  /** Waits for the runner's ack of {@code name}; fails past {@code seconds}. */
  void awaitAck(String name, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (get(name + ".ack") == null) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no ack of marker "
                + name
                + " in "
                + dir
                + " within "
                + seconds
                + " s: is the runner (NetworkPathBenchmark) sampling this run?");
      }
      Thread.sleep(20);
    }
  }
}
