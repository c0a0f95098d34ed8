/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.PrivilegedAction;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * A thread of the reduce side that runs as the user who created it: the task's, since the reduce
 * task creates its shuffle's threads inside its {@code doAs}. Hadoop 3.5 runs its own Fetcher,
 * EventFetcher and merge threads as {@code SubjectInheritingThread} for the same reason: on Java 21
 * and older a new thread inherits its creator's {@code Subject} with its access control context,
 * from Java 22 on (the Subject bound by {@code callAs}, not inherited) it does not, and {@code
 * UserGroupInformation.getCurrentUser()} in a plain thread would be the process's login user (its
 * file systems, its credentials). Running {@link #work()} in the creator's {@code
 * UserGroupInformation.doAs} gives the same on every Java and on Hadoop 3.4 and 3.5 alike, without
 * naming a class only 3.5 has.
 */
abstract class TaskUserThread extends Thread {
  private final UserGroupInformation user;

  TaskUserThread(String name) {
    super(name);
    try {
      this.user = UserGroupInformation.getCurrentUser();
    } catch (IOException e) {
      throw new UncheckedIOException("rdma-shuffle: can't tell the task's user", e);
    }
  }

  @Override
  public final void run() {
    user.doAs(
        (PrivilegedAction<Void>)
            () -> {
              work();
              return null;
            });
  }

  /** What the thread does, as its creator's user. */
  protected abstract void work();
}
