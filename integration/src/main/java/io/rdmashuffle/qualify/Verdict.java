/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

/** How a check came out, worst last. */
public enum Verdict {
  /** Measured and shown; nothing to judge. */
  INFO,
  /** Holds. */
  PASS,
  /** Did not run (not asked for, or what it needs is missing); says why. */
  SKIP,
  /** Works, but not as it should on a production fabric; the advice says what to change. */
  WARN,
  /** Does not hold; the advice says what to change. */
  FAIL;

  /** The worse of two verdicts. */
  public Verdict worst(Verdict other) {
    return other.ordinal() > ordinal() ? other : this;
  }
}
