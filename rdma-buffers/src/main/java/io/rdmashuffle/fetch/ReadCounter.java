/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.counters.CounterDescriptor;

/**
 * The counters of one process's block readers ({@link ReadCounters}), each declared once with its
 * stable id (300..399), exported name and label. The families name their {@link
 * BlockFetchException.Kind} or {@link CorruptionCause}: each has exactly one counter.
 */
public enum ReadCounter implements CounterDescriptor {
  BLOCKS_LOCAL(300, "blocksLocal", "Blocks read from map outputs of this process's host"),
  BYTES_LOCAL(301, "bytesLocal", "Bytes of blocks read on this host"),
  BLOCKS_REMOTE(302, "blocksRemote", "Blocks READ through the transport"),
  BYTES_REMOTE(303, "bytesRemote", "Bytes of blocks READ through the transport"),
  CHECKSUM_MISMATCHES(
      304, "checksumMismatches", "Blocks whose bytes did not match their published checksum"),
  LOCATES(305, "locates", "Locate calls sent to owners"),
  RELOCATES(306, "relocates", "Locates again after an owner withdrew a registration"),
  RETRIES(307, "retries", "Locates or READs tried again after a transport failure"),
  BUSY_ANSWERS(308, "busyAnswers", "Locate answers saying the owner was busy"),
  FETCH_FAILURES_TRANSPORT(
      310,
      "fetchFailures.transport",
      BlockFetchException.Kind.TRANSPORT,
      "Fetch failures: the owner unreachable or its READs failing, after every retry"),
  FETCH_FAILURES_CHECKSUM(
      311,
      "fetchFailures.checksum",
      BlockFetchException.Kind.CHECKSUM,
      "Fetch failures: the bytes did not match the published checksum"),
  FETCH_FAILURES_INVALID(
      312,
      "fetchFailures.invalid",
      BlockFetchException.Kind.INVALID,
      "Fetch failures: the owner's answer did not describe what was asked"),
  FETCH_FAILURES_MISSING(
      313,
      "fetchFailures.missing",
      BlockFetchException.Kind.MISSING,
      "Fetch failures: the owner does not have the map output"),
  FETCH_FAILURES_UNAVAILABLE(
      314,
      "fetchFailures.unavailable",
      BlockFetchException.Kind.UNAVAILABLE,
      "Fetch failures: the owner could not serve it, after every retry"),
  FETCH_FAILURES_LOCAL(
      315,
      "fetchFailures.local",
      BlockFetchException.Kind.LOCAL,
      "Fetch failures: the map output's file on this host could not be read"),
  FETCH_FAILURES_STREAM(
      316,
      "fetchFailures.stream",
      BlockFetchException.Kind.STREAM,
      "Fetch failures: the engine could not decode a block's bytes"),
  FETCH_FAILURES_SHORTAGE(
      317,
      "fetchFailures.shortage",
      BlockFetchException.Kind.SHORTAGE,
      "Reads failed for the reader's own shortage (buffers, memory)"),
  FETCH_FAILURES_OWN_SIDE(
      319,
      "fetchFailures.ownSide",
      BlockFetchException.Kind.OWN_SIDE,
      "Reads failed: this process's own side of the transport failed, after every retry"),
  FETCH_FAILURES_BUSY(
      318,
      "fetchFailures.busy",
      BlockFetchException.Kind.BUSY,
      "Reads failed: the owner stayed busy longer than the reader's patience"),
  CORRUPTIONS_DISK_ISSUE(
      320,
      "corruptions.DISK_ISSUE",
      CorruptionCause.DISK_ISSUE,
      "Checksum mismatches diagnosed: the owner's file no longer holds the bytes it published"),
  CORRUPTIONS_NETWORK_ISSUE(
      321,
      "corruptions.NETWORK_ISSUE",
      CorruptionCause.NETWORK_ISSUE,
      "Checksum mismatches diagnosed: bytes damaged on their way to the reader"),
  CORRUPTIONS_CHECKSUM_VERIFY_PASS(
      322,
      "corruptions.CHECKSUM_VERIFY_PASS",
      CorruptionCause.CHECKSUM_VERIFY_PASS,
      "Checksum mismatches diagnosed: the bytes match the published checksum after all"),
  CORRUPTIONS_UNKNOWN_ISSUE(
      323,
      "corruptions.UNKNOWN_ISSUE",
      CorruptionCause.UNKNOWN_ISSUE,
      "Checksum mismatches whose cause could not be found");

  private final Declaration declaration;
  private final BlockFetchException.Kind failure;
  private final CorruptionCause corruption;

  ReadCounter(int id, String exportName, String label) {
    this(id, exportName, null, null, label);
  }

  ReadCounter(int id, String exportName, BlockFetchException.Kind failure, String label) {
    this(id, exportName, failure, null, label);
  }

  ReadCounter(int id, String exportName, CorruptionCause corruption, String label) {
    this(id, exportName, null, corruption, label);
  }

  ReadCounter(
      int id,
      String exportName,
      BlockFetchException.Kind failure,
      CorruptionCause corruption,
      String label) {
    this.declaration = new Declaration(id, exportName, label);
    this.failure = failure;
    this.corruption = corruption;
  }

  @Override
  public Declaration declaration() {
    return declaration;
  }

  /** The failure kind this counter counts, or null. */
  public BlockFetchException.Kind failure() {
    return failure;
  }

  /** The diagnosed corruption cause this counter counts, or null. */
  public CorruptionCause corruption() {
    return corruption;
  }

  private static final ReadCounter[] BY_FAILURE =
      new ReadCounter[BlockFetchException.Kind.values().length];
  private static final ReadCounter[] BY_CORRUPTION =
      new ReadCounter[CorruptionCause.values().length];

  static {
    for (ReadCounter c : values()) {
      if (c.failure != null) {
        BY_FAILURE[c.failure.ordinal()] = c;
      }
      if (c.corruption != null) {
        BY_CORRUPTION[c.corruption.ordinal()] = c;
      }
    }
  }

  /** The counter of failures of {@code kind}. */
  public static ReadCounter of(BlockFetchException.Kind kind) {
    return BY_FAILURE[kind.ordinal()];
  }

  /** The counter of checksum mismatches diagnosed as {@code cause}. */
  public static ReadCounter of(CorruptionCause cause) {
    return BY_CORRUPTION[cause.ordinal()];
  }
}
