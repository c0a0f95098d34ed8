/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

/** How the verbs transport registers the memory it serves (map output files). */
public enum VerbsRegistration {
  /** On-demand paging where the device supports it for RC READ, otherwise pinned. */
  AUTO,
  /** Pinned: every registered page is locked in memory (counts against RLIMIT_MEMLOCK). */
  PINNED,
  /**
   * On-demand paging ({@code IBV_ACCESS_ON_DEMAND}): pages are faulted in when READ and may be
   * reclaimed; the transport does not start where the device can't.
   */
  ODP
}
