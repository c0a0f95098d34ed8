/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.RESPONSE_HEADER_BYTES;
import static io.rdmashuffle.transport.tcp.TcpFrameLayout.STATUS_DEREGISTERED;
import static io.rdmashuffle.transport.tcp.TcpFrameLayout.encodeResponseHeader;

import io.rdmashuffle.memory.MemoryPiece;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Puts the bytes of a {@link ReadSession}'s owed responses (its {@link ResponseQueue}, by index)
 * into the I/O thread's staging buffer: a response's header, whole or less the bytes already sent,
 * and its data read from the served file with {@code pread} (never through the file's mapping) or
 * copied from registered memory. A response not yet started whose file has shrunk becomes a
 * "deregistered" refusal here. Which responses go and what is written to the socket stay the
 * session's. Allocates nothing per READ; its connection's I/O thread only.
 */
final class ResponseComposer {
  private final ResponseQueue queue;

  /** A header whose start went out in an earlier write, composed whole to send the rest. */
  private final ByteBuffer header = ByteBuffer.allocate(RESPONSE_HEADER_BYTES);

  ResponseComposer(ResponseQueue queue) {
    this.queue = queue;
  }

  /**
   * Puts the k-th response (not started) into {@code out}: its header and its first {@code n} data
   * bytes. Returns false when its file has shrunk: it is a refusal then, composed instead.
   */
  boolean compose(ByteBuffer out, int k, int from, int n) throws IOException {
    int at = out.position();
    out.position(at + RESPONSE_HEADER_BYTES);
    if (n > 0 && !copy(out, k, from, n)) {
      out.position(at);
      queue.refuse(k, STATUS_DEREGISTERED);
      putHeader(out, k, 0);
      return false;
    }
    int end = out.position();
    out.position(at);
    putHeader(out, k, 0);
    out.position(end);
    return true;
  }

  /**
   * Appends {@code n} data bytes of the k-th response from its offset {@code from}: read from the
   * served file with {@code pread}, or copied from registered memory. False when the file ended
   * first.
   */
  boolean copy(ByteBuffer out, int k, int from, int n) throws IOException {
    MemoryPiece m = queue.region(k).memory();
    int p = out.position();
    long position = queue.offset(k) + (long) from;
    if (!m.isFile()) {
      out.put(p, m.buffer(), (int) position, n);
      out.position(p + n);
      return true;
    }
    ByteBuffer into = out.duplicate().limit(p + n);
    FileChannel file = m.file();
    long at = m.fileOffset() + position;
    while (into.hasRemaining()) {
      if (file.read(into, at + into.position() - p) < 0) {
        return false;
      }
    }
    out.position(p + n);
    return true;
  }

  /** Puts the k-th response's header into {@code out}, less its first {@code skip} bytes (sent). */
  void putHeader(ByteBuffer out, int k, int skip) {
    if (skip == 0) {
      encodeResponseHeader(out, out.position(), queue.id(k), queue.status(k), queue.length(k));
      out.position(out.position() + RESPONSE_HEADER_BYTES);
      return;
    }
    ByteBuffer h = header.clear();
    encodeResponseHeader(h, 0, queue.id(k), queue.status(k), queue.length(k));
    out.put(h.position(skip));
  }
}
