/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

/** What a registration allows. There is deliberately no remote-write access. */
public enum Access {
  /** Local memory that READs write into (the destination of a READ). Not remotely accessible. */
  LOCAL_WRITE,
  /**
   * Served to remote READs of authenticated peers of the region's owner application. Never remotely
   * writable.
   */
  REMOTE_READ
}
