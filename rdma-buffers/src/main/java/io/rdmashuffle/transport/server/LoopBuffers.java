/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.IdentityHashMap;

/**
 * The buffers one I/O thread shares among all its connections: a direct buffer to receive into, a
 * direct staging buffer to compose sends in, and writable views of served memory. Nothing in them
 * outlives one call into a connection: what a connection has not sent is composed again from its
 * own state next time, so a connection holds no buffer of its own. Allocated with the thread (320
 * KiB of direct memory, whatever the number of connections), freed when it ends. Owned by one
 * {@link IoLoop}; its thread only.
 */
public final class LoopBuffers {
  static final int IN_BYTES = 64 * 1024;
  static final int OUT_BYTES = 256 * 1024;
  private static final int MAX_VIEWS = 256;

  private ByteBuffer in = DirectMemory.allocate(IN_BYTES);
  private ByteBuffer out = DirectMemory.allocate(OUT_BYTES);
  private final ByteBuffer[] gather = new ByteBuffer[2];
  private final IdentityHashMap<MemoryPiece, ByteBuffer> views = new IdentityHashMap<>();

  /** The receive buffer, cleared. */
  public ByteBuffer in() {
    return in.clear();
  }

  /** The staging buffer, cleared. */
  public ByteBuffer out() {
    return out.clear();
  }

  /** Two slots for a gathering write. */
  public ByteBuffer[] gather() {
    return gather;
  }

  /** A view of {@code memory} whose position and limit the caller may set. */
  public ByteBuffer view(MemoryPiece memory) {
    ByteBuffer v = views.get(memory);
    if (v == null) {
      if (views.size() >= MAX_VIEWS) {
        views.clear();
      }
      v = memory.buffer().duplicate();
      views.put(memory, v);
    }
    return v;
  }

  /**
   * Reads up to {@code dst.remaining()} bytes into heap buffer {@code dst} through the receive
   * buffer (the JDK would otherwise cache a temporary direct buffer per size); -1 at the end.
   */
  public int read(SocketChannel ch, ByteBuffer dst) throws IOException {
    ByteBuffer b = in();
    b.limit(Math.min(b.capacity(), dst.remaining()));
    int n = ch.read(b);
    if (n > 0) {
      b.flip();
      dst.put(b);
    }
    return n;
  }

  /** Writes what it can of heap buffer {@code src} through the staging buffer. */
  public int write(SocketChannel ch, ByteBuffer src) throws IOException {
    ByteBuffer b = out();
    int n = Math.min(b.capacity(), src.remaining());
    b.put(0, src, src.position(), n).limit(n);
    int written = ch.write(b);
    src.position(src.position() + written);
    return written;
  }

  void free() {
    DirectMemory.free(in);
    DirectMemory.free(out);
    in = null;
    out = null;
    views.clear();
  }
}
