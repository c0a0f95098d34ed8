/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

/**
 * The owner's answer to a {@link ChecksumRequest}: the checksum its meta file publishes for the
 * partition and the checksum of the partition's bytes as its data file holds them now, computed by
 * reading the file (not through the transport), or why it could not say. Its bytes are {@link
 * ChecksumLayout}'s.
 *
 * @param length the partition's length in bytes, as published
 * @param message why, when the status is not {@link Status#OK}; empty otherwise
 */
public record ChecksumAnswer(
    Status status,
    ChecksumAlgorithm algorithm,
    int published,
    int recomputed,
    long length,
    String message) {

  /** Whether the owner could compute the checksum, and if not, why. */
  public enum Status {
    OK(0),
    /** The owner does not have the map output. */
    NOT_FOUND(1),
    /** Its files could not be read, or publish no checksum. */
    UNREADABLE(2),
    /** The application is not served there, or the partition is not in the output. */
    REFUSED(3);

    private final int code;

    Status(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Status of(int code) {
      for (Status s : values()) {
        if (s.code == code) {
          return s;
        }
      }
      throw new IllegalArgumentException("checksum answer status=" + code + ": unknown");
    }
  }

  public ChecksumAnswer {
    message = message == null ? "" : message;
  }

  public static ChecksumAnswer ok(
      ChecksumAlgorithm algorithm, int published, int recomputed, long length) {
    return new ChecksumAnswer(Status.OK, algorithm, published, recomputed, length, "");
  }

  public static ChecksumAnswer failed(Status status, String message) {
    return new ChecksumAnswer(status, ChecksumAlgorithm.NONE, 0, 0, 0, message);
  }
}
