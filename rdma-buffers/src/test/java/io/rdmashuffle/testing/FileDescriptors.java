/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import java.io.File;

/** Open file descriptors and mappings of this process, from /proc (Linux). */
public final class FileDescriptors {
  private FileDescriptors() {}

  public static int open() {
    String[] fds = new File("/proc/self/fd").list();
    return fds == null ? -1 : fds.length;
  }

  /**
   * Descriptors of this process open on {@code file}: unlike {@link #open()}, not moved by other
   * threads opening jars, sockets or logs meanwhile.
   */
  public static int openOn(java.nio.file.Path file) {
    File[] fds = new File("/proc/self/fd").listFiles();
    if (fds == null) {
      return -1;
    }
    java.nio.file.Path target = file.toAbsolutePath().normalize();
    int n = 0;
    for (File fd : fds) {
      try {
        if (java.nio.file.Files.readSymbolicLink(fd.toPath()).equals(target)) {
          n++;
        }
      } catch (java.io.IOException | UnsupportedOperationException closedMeanwhile) {
        // gone since it was listed
      }
    }
    return n;
  }

  /** Waits up to {@code millis} for the count to come down to {@code expected}; the last count. */
  public static int awaitAtMost(int expected, long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    int n = open();
    while (n > expected && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
      n = open();
    }
    return n;
  }
}
