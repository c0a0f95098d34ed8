/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

/**
 * Why a block's bytes did not match their published checksum, in the words of Spark's shuffle
 * corruption diagnosis ({@code org.apache.spark.network.shuffle.checksum.Cause}, SPARK-36206), so
 * an operator reads the same causes whichever shuffle runs.
 */
public enum CorruptionCause {
  /** The owner's file no longer holds the bytes it published: the disk (or the file) changed. */
  DISK_ISSUE,
  /** The file still matches its checksum; the bytes were damaged on their way to the reader. */
  NETWORK_ISSUE,
  /** The bytes read match the published checksum after all. */
  CHECKSUM_VERIFY_PASS,
  /** The cause could not be found (the owner could not be asked, or could not read its file). */
  UNKNOWN_ISSUE
}
