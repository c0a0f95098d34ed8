/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;

import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.server.Connection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes a {@link TcpReadChannel}'s READ requests: whichever posting thread gets the send lock
 * takes every request issued and not yet sent, tags each (its {@link FrameMac} numbers them in
 * write order) and writes them with one write: the doorbell. A thread that finds the lock taken
 * leaves its requests to the holder, which looks again after letting go. The socket does not block:
 * what it does not take (a reader with more requests in flight than the socket buffer holds) stays
 * in the buffer, and the connection's I/O thread writes it when the socket takes bytes again
 * ({@link #flush}). Tags are computed outside the channel's state lock; nothing is allocated per
 * request.
 */
final class ReadRequestWriter {
  static final int MAX_FRAMES_PER_WRITE = 1024;

  private final TcpReadChannel channel;
  private final Connection conn;
  private final FrameMac mac;
  private final ReentrantLock send = new ReentrantLock();
  private final ByteBuffer buffer;
  private final byte[] frame = new byte[REQUEST_BYTES];

  /** Whether {@link #buffer} holds bytes the socket did not take; guarded by the send lock. */
  private boolean stalled;

  private boolean freed;

  /** What {@link TcpReadChannel#takeUnsent} copies out under the state lock. */
  final int[] ids;

  final int[] rkeys;
  final int[] lengths;
  final long[] addresses;

  ReadRequestWriter(TcpReadChannel channel, Connection conn, FrameMac mac, int maxRequests) {
    this.channel = channel;
    this.conn = conn;
    this.mac = mac;
    int frames = Math.min(maxRequests, MAX_FRAMES_PER_WRITE);
    this.buffer = DirectMemory.allocate(REQUEST_BYTES * frames);
    this.ids = new int[frames];
    this.rkeys = new int[frames];
    this.lengths = new int[frames];
    this.addresses = new long[frames];
  }

  /** Writes every issued request, unless another thread is writing (it picks ours up). */
  void drain() {
    while (true) {
      if (!send.tryLock()) {
        return;
      }
      try {
        if (!writeLocked()) {
          return; // the I/O thread writes the rest when the socket takes bytes
        }
      } catch (IOException e) {
        channel.closeWith(
            new ConnectionLostException("sending READ requests failed", channel.peer(), null, e));
        return;
      } finally {
        send.unlock();
      }
      if (!channel.hasUnsent()) {
        return;
      }
    }
  }

  /** The socket takes bytes again (I/O thread): writes what waits, then what was issued since. */
  void flush() throws IOException {
    send.lock();
    try {
      if (!writeLocked()) {
        return;
      }
      conn.wantWrite(false);
    } finally {
      send.unlock();
    }
    drain();
  }

  /** Writes what waits and every unsent request; false when the socket is full. */
  private boolean writeLocked() throws IOException {
    if (freed) {
      return true;
    }
    if (stalled && !writeBuffer()) {
      return false;
    }
    int n;
    while ((n = channel.takeUnsent(this)) > 0) {
      buffer.clear();
      for (int i = 0; i < n; i++) {
        encodeRequest(frame, 0, ids[i], rkeys[i], lengths[i], addresses[i], mac);
        buffer.put(frame);
      }
      buffer.flip();
      if (!writeBuffer()) {
        return false;
      }
    }
    return true;
  }

  private boolean writeBuffer() throws IOException {
    conn.channel().write(buffer);
    if (!buffer.hasRemaining()) {
      stalled = false;
      return true;
    }
    if (!stalled) {
      stalled = true;
      conn.loop().execute(() -> conn.wantWrite(true));
    }
    return false;
  }

  /** The channel has ended and no thread writes any more. */
  void free() {
    send.lock();
    try {
      if (!freed) {
        freed = true;
        DirectMemory.free(buffer);
      }
    } finally {
      send.unlock();
    }
  }
}
