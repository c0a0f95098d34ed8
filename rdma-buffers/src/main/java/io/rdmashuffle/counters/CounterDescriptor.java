/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.counters;

/**
 * One counter, declared once (after Aeron's {@code SystemCounterDescriptor}): each group of
 * counters is an enum implementing this, whose storage, snapshot, engine adapters and generated
 * documentation all iterate its constants, so a counter's name is written in one place only.
 */
public interface CounterDescriptor {
  /** The counter's stable id, exported name and label, as its constant declares them. */
  Declaration declaration();

  /** Stable across releases: a counter keeps its id when it is renamed; ids are never reused. */
  default int id() {
    return declaration().id();
  }

  /**
   * The name the counter is exported under: the key of its group's snapshot (the Spark metrics
   * source's gauge, the services' log lines), or the Hadoop counter's name. Tests, cluster runs and
   * result parsers read it; changing it breaks them.
   */
  default String exportName() {
    return declaration().exportName();
  }

  /** What it counts, in one line (documentation, Hadoop's display name). */
  default String label() {
    return declaration().label();
  }

  /** What a counter constant declares about itself: each group's enum holds one per constant. */
  record Declaration(int id, String exportName, String label) {}
}
