/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static io.rdmashuffle.transport.server.CallFrameLayout.*;

import java.nio.ByteBuffer;

/**
 * Reassembles the answer frames a {@link CallConnection} receives: first the fixed header, then the
 * rest of the frame it announces, refusing a header that announces more than {@code
 * call.maxAnswerBytes}. Loop thread only.
 */
final class AnswerReader {
  /** One answer read whole: the frame (header, payload and tag) and its decoded header. */
  record Answer(byte[] frame, Header header) {}

  private final int maxAnswerBytes;
  private final ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
  private ByteBuffer frame;
  private Header current;

  AnswerReader(int maxAnswerBytes) {
    this.maxAnswerBytes = maxAnswerBytes;
  }

  /** Where the next bytes read go. */
  ByteBuffer into() {
    return frame == null ? header : frame;
  }

  /**
   * Called when {@link #into()} is full: the answer it completed, or null when that was the header.
   *
   * @throws IllegalArgumentException when the header is malformed or announces too much
   */
  Answer filled() {
    if (frame == null) {
      current = decodeHeader(header.array(), maxAnswerBytes, Integer.MAX_VALUE);
      frame = ByteBuffer.allocate(frameBytes(current.length())).put(header.array());
      header.clear();
      return null;
    }
    Answer a = new Answer(frame.array(), current);
    frame = null;
    return a;
  }
}
