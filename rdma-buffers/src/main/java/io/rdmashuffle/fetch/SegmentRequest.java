/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;

/**
 * What a {@link SegmentFetcher} fetches: {@code length} bytes at {@code offset} of a file
 * registered by {@code peer}.
 */
public record SegmentRequest(
    PeerAddress peer,
    String application,
    RegisteredFileDescriptor file,
    long offset,
    int length,
    Object tag) {
  public SegmentRequest {
    if (length < 0 || offset < 0 || offset > file.fileLength() - length) {
      throw new IllegalArgumentException(
          "segment offset="
              + offset
              + " length="
              + length
              + ": outside the registered file of "
              + file.fileLength()
              + " bytes");
    }
  }
}
