/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;

import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.RemoteAccessException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.IdentityHashMap;

/**
 * Reads a {@link TcpReadChannel}'s responses as they arrive, without blocking, on the connection's
 * I/O thread, and lands each READ's bytes straight in its target memory: small responses through
 * the I/O thread's shared receive buffer (every byte of it is taken before returning), the data of
 * a large one (and, after one, of the next: large READs come in runs) directly from the socket. It
 * keeps only the part of a header that came alone and where the response in progress is. The I/O
 * thread is the only one that writes into targets, so the channel fails the READs in flight there
 * when the connection ends: no target is written after its READ was reported. A response that
 * breaks the protocol (malformed header, an id not in flight, another length) ends the connection.
 * Allocates nothing per READ. I/O thread only.
 */
final class ReadResponseReader {
  /** Bytes one connection reads per turn before the I/O thread's other connections get theirs. */
  private static final long TURN_BYTES = 4L << 20;

  private final TcpReadChannel channel;
  private final ResponseHeader header = new ResponseHeader();
  private final ByteBuffer carry = ByteBuffer.allocate(RESPONSE_HEADER_BYTES);
  private final IdentityHashMap<RegisteredRegion, ByteBuffer> views = new IdentityHashMap<>();

  /** The response whose data is being received, or null between responses. */
  private ReadOp op;

  private int slot;
  private int got;
  private ByteBuffer target;

  /** Whether the last response's data came (in part) straight from the socket. */
  private boolean afterLarge;

  ReadResponseReader(TcpReadChannel channel) {
    this.channel = channel;
  }

  /** Reads what the socket has, up to a turn's worth. */
  void readable(SocketChannel ch, ByteBuffer in) throws IOException {
    long budget = TURN_BYTES;
    while (budget > 0 && channel.receiving()) {
      if (op != null) {
        int offset = (int) op.targetOffset();
        target.limit(offset + op.length()).position(offset + got);
        int n = ch.read(target);
        if (n < 0) {
          throw new EOFException("peer closed the connection in the middle of a READ");
        }
        if (n == 0) {
          return;
        }
        budget -= n;
        got += n;
        afterLarge = true;
        if (got == op.length()) {
          completed();
        }
        continue;
      }
      in.clear();
      if (afterLarge) {
        // the next response is likely large too: only its header, so its data lands directly
        in.limit(RESPONSE_HEADER_BYTES - carry.position());
      }
      int n = ch.read(in);
      if (n < 0) {
        throw new EOFException("peer closed the connection");
      }
      if (n == 0) {
        return;
      }
      budget -= n;
      in.flip();
      take(in);
    }
  }

  /** Takes every byte of {@code in}: headers, and the data of the responses they start. */
  private void take(ByteBuffer in) throws IOException {
    while (in.hasRemaining() && channel.receiving()) {
      if (op == null) {
        if (carry.position() > 0 || in.remaining() < RESPONSE_HEADER_BYTES) {
          int k = Math.min(carry.remaining(), in.remaining());
          carry.put(carry.position(), in, in.position(), k).position(carry.position() + k);
          in.position(in.position() + k);
          if (carry.hasRemaining()) {
            return;
          }
          start(carry, 0);
          carry.clear();
        } else {
          start(in, in.position());
          in.position(in.position() + RESPONSE_HEADER_BYTES);
        }
        continue;
      }
      int k = Math.min(in.remaining(), op.length() - got);
      target.put((int) op.targetOffset() + got, in, in.position(), k);
      in.position(in.position() + k);
      got += k;
      afterLarge = got < op.length();
      if (got == op.length()) {
        completed();
      }
    }
  }

  /** A header at {@code src[at]}: completes a refusal, or starts receiving the data. */
  private void start(ByteBuffer src, int at) throws IOException {
    try {
      decodeResponseHeader(src, at, header);
    } catch (IllegalArgumentException e) {
      throw new IOException("protocol error: " + e.getMessage());
    }
    ReadOp inFlight = channel.inFlight(header.id);
    if (inFlight == null || (header.status == STATUS_OK && header.length != inFlight.length())) {
      throw new IOException("protocol error: response for request " + header.id + " not in flight");
    }
    if (header.status != STATUS_OK) {
      channel.complete(
          header.id,
          inFlight,
          new RemoteAccessException(reasonOf(header.status), channel.peer(), inFlight));
      return;
    }
    op = inFlight;
    slot = header.id;
    got = 0;
    target = viewOf(inFlight.target());
    if (inFlight.length() == 0) {
      completed();
    }
  }

  private void completed() {
    ReadOp done = op;
    op = null;
    target = null;
    channel.complete(slot, done, null);
  }

  private ByteBuffer viewOf(RegisteredRegion region) {
    ByteBuffer v = views.get(region);
    if (v == null) {
      if (views.size() >= 256) {
        views.clear();
      }
      v = region.memory().buffer().duplicate();
      views.put(region, v);
    }
    return v.clear();
  }
}
