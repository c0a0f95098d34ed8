/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tpcds.report;

import java.util.List;

/**
 * Everything the report says about one query: the verdict of the result comparison and the timings
 * and shuffle figures of each side (medians over its timed rounds).
 *
 * @param query the query id
 * @param verdict whether the two sides returned the same result
 * @param withinTolerance equal only after comparing doubles within tolerance (digests differ)
 * @param note why it is different, or which side disagreed with itself; empty when nothing to say
 * @param stockSeconds stock's timed rounds, in seconds (successful runs only)
 * @param oursSeconds ours's timed rounds, in seconds
 * @param stock medians of stock's shuffle figures
 * @param ours medians of ours's shuffle figures
 * @param stockResults distinct digests stock returned
 * @param oursResults distinct digests ours returned
 * @param error the error both sides failed with (verdict {@link Verdict#SAME_ERROR}), else null
 */
public record QueryOutcome(
    String query,
    Verdict verdict,
    boolean withinTolerance,
    String note,
    Stats stockSeconds,
    Stats oursSeconds,
    ShuffleFigures stock,
    ShuffleFigures ours,
    List<String> stockResults,
    List<String> oursResults,
    String error) {

  /** The verdict of comparing one query's results across both sides. */
  public enum Verdict {
    /** Every run on both sides returned the same rows. */
    EQUAL,
    /** Every run on both sides failed with the same error (equal results too). */
    SAME_ERROR,
    /** Some run returned something else: different rows, or an error on one side only. */
    DIFFERENT,
    /** Some run gave no result: its application died before it, or it timed out. */
    FAILED;

    public boolean equalResults() {
      return this == EQUAL || this == SAME_ERROR;
    }
  }

  /** Both sides ran it successfully and timed it: it counts in totals and ratios. */
  public boolean timed() {
    return verdict == Verdict.EQUAL && stockSeconds.present() && oursSeconds.present();
  }

  /** ours / stock of the median times, NaN when not {@link #timed()}. */
  public double ratio() {
    return timed() ? oursSeconds.median() / stockSeconds.median() : Double.NaN;
  }

  /** Seconds ours saved (negative: lost), NaN when not {@link #timed()}. */
  public double savedSeconds() {
    return timed() ? stockSeconds.median() - oursSeconds.median() : Double.NaN;
  }

  /**
   * Medians of one side's shuffle figures for one query, over its timed rounds.
   *
   * @param writeBytes shuffle bytes written
   * @param readBytes shuffle bytes read
   * @param remoteBytes remote part of the bytes read
   * @param fetchWaitMillis time blocked waiting for shuffle data
   */
  public record ShuffleFigures(
      long writeBytes, long readBytes, long remoteBytes, long fetchWaitMillis) {
    public static final ShuffleFigures NONE = new ShuffleFigures(0, 0, 0, 0);
  }
}
