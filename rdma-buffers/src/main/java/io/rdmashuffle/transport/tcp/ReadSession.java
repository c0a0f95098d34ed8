/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;

import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.server.Connection;
import io.rdmashuffle.transport.server.LoopBuffers;
import io.rdmashuffle.transport.server.Session;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Serves the READs of one authenticated connection, as a NIC would, without blocking: checks each
 * request's tag (only the authenticated reader's requests, each once, in order), then the rkey,
 * that the region belongs to the application the peer proved, and the bounds; then sends the bytes.
 * Small responses are composed into the I/O thread's staging buffer (a file's bytes read with
 * {@code pread}, never through its mapping) and leave in one write; a large one follows directly:
 * its header and first segment in that write, the rest with {@code FileChannel.transferTo}
 * (sendfile) for files, a gathering write from the registered memory otherwise. What the socket
 * does not take waits in the {@link ResponseQueue} by reference, holding its region; a withdrawn
 * region's responses not yet started are refused, and one being sent is ended with the connection
 * after {@code server.withdrawTimeout}. Allocates nothing per READ. Runs on its connection's I/O
 * thread.
 */
final class ReadSession implements Session {
  /**
   * Responses up to this size are copied into the staging buffer; larger ones are sent directly.
   */
  static final int COPY_LIMIT = 32 * 1024;

  /** Data of a large response sent with its header, the rest with sendfile. */
  static final int FIRST_SEGMENT = 4 * 1024;

  /** Bytes one connection sends per turn before the I/O thread's other connections get theirs. */
  private static final long TURN_BYTES = 4L << 20;

  private final Connection conn;
  private final TcpReadService service;
  private final String application;
  private final FrameMac requests;
  private final ResponseQueue queue = new ResponseQueue();
  private final byte[] frame = new byte[REQUEST_BYTES];
  private final Request request = new Request();
  private final ResponseComposer composer = new ResponseComposer(queue);

  /** Bytes of a partly received request frame, held in {@link #frame}. */
  private int carried;

  /** Bytes of the oldest response (header and data) already sent. */
  private long sentOfHead;

  /** When the response being sent was first seen holding a withdrawn region; 0 when not. */
  private long withdrawnSince;

  private boolean reading = true;

  ReadSession(TcpReadService service, Connection conn, String application, FrameMac requests) {
    this.service = service;
    this.conn = conn;
    this.application = application;
    this.requests = requests;
  }

  @Override
  public void readable() throws IOException {
    int room = queue.room();
    if (room == 0) {
      reading = false;
      conn.wantRead(false); // the reader reads no responses: leave its requests in the socket
      return;
    }
    ByteBuffer in = conn.buffers().in();
    in.limit((int) Math.min(in.capacity(), (long) room * REQUEST_BYTES - carried));
    int n = conn.channel().read(in);
    if (n < 0) {
      conn.close(null, null);
      return;
    }
    if (n == 0) {
      return;
    }
    conn.received();
    in.flip();
    if (carried > 0) {
      int k = Math.min(REQUEST_BYTES - carried, in.remaining());
      in.get(frame, carried, k);
      carried += k;
      if (carried < REQUEST_BYTES) {
        return;
      }
      carried = 0;
      if (!accept()) {
        return;
      }
    }
    while (in.remaining() >= REQUEST_BYTES) {
      in.get(frame);
      if (!accept()) {
        return;
      }
    }
    carried = in.remaining();
    in.get(frame, 0, carried);
    flush();
  }

  /**
   * Checks the request in {@link #frame} and queues its response; false when it closed the
   * connection.
   */
  private boolean accept() {
    if (!requests.verify(frame, 0, REQUEST_BODY_BYTES, frame, REQUEST_TAG_OFFSET)) {
      conn.close(
          Refusal.FRAME_REJECTED,
          "READ request failed its authentication tag (forged, replayed or altered on the way)");
      return false;
    }
    try {
      decodeRequest(frame, 0, request);
    } catch (IllegalArgumentException e) {
      conn.close(Refusal.FRAME_REJECTED, "READ request: " + e.getMessage());
      return false;
    }
    TcpRegion r = service.table().lookup(request.rkey);
    int status;
    if (r == null) {
      status = STATUS_BAD_RKEY;
    } else if (!r.owner().equals(application)) {
      status = STATUS_NOT_PERMITTED;
    } else if (request.length <= 0 || !r.contains(request.address, request.length)) {
      status = STATUS_OUT_OF_BOUNDS;
    } else if (!r.tryRetain()) {
      status = STATUS_DEREGISTERED;
    } else {
      queue.add(request.id, STATUS_OK, r, (int) (request.address - r.address()), request.length);
      return true;
    }
    service.metrics().refused(Refusal.READ_REFUSED);
    queue.add(request.id, status, null, 0, 0);
    return true;
  }

  @Override
  public void writable() throws IOException {
    flush();
  }

  /** Sends what the socket takes, up to one turn's worth. */
  private void flush() throws IOException {
    long budget = TURN_BYTES;
    while (!queue.isEmpty()) {
      long sent = sendSome();
      if (sent < 0) {
        conn.wantWrite(true); // the socket is full
        return;
      }
      budget -= sent;
      if (budget <= 0) {
        conn.wantWrite(true); // more next turn
        return;
      }
    }
    conn.wantWrite(false);
    if (!reading) {
      reading = true;
      conn.wantRead(true);
    }
  }

  /**
   * Composes the oldest responses and writes them: small ones whole into the staging buffer, their
   * bytes read from the served file ({@code pread}) or copied from registered memory, then at most
   * one large one after them, whose header goes with its first segment. The I/O thread never reads
   * a mapped file's pages: a file truncated under its mapping would raise SIGBUS in it, and every
   * page it read would count in the process's resident size. A small response whose file has shrunk
   * is answered "deregistered" instead (the reader asks the owner again, which finds the file
   * damaged). Returns the bytes written, or -1 when the socket took less than offered.
   */
  private long sendSome() throws IOException {
    LoopBuffers b = conn.buffers();
    ByteBuffer out = b.out();
    int size = queue.size();
    int large = -1;
    int dataFrom = 0;
    for (int k = 0; k < size; k++) {
      long skip = k == 0 ? sentOfHead : 0;
      if (skip == 0) {
        refuseIfWithdrawn(k);
      }
      int length = queue.length(k);
      if (length > COPY_LIMIT) {
        dataFrom = (int) Math.max(0, skip - RESPONSE_HEADER_BYTES);
        if (skip < RESPONSE_HEADER_BYTES) {
          if (out.remaining() < RESPONSE_HEADER_BYTES) {
            break;
          }
          if (skip == 0 && sendsFile(k)) {
            // the header and the first segment in one send: no packet carries the header alone
            int first = Math.min(FIRST_SEGMENT, out.remaining() - RESPONSE_HEADER_BYTES);
            if (!composer.compose(out, k, 0, first)) {
              continue; // its file has shrunk: refused instead
            }
            dataFrom = first;
          } else {
            composer.putHeader(out, k, (int) skip);
          }
        }
        large = k;
        break;
      }
      int from = (int) Math.max(0, skip - RESPONSE_HEADER_BYTES);
      if (out.remaining() < RESPONSE_HEADER_BYTES + length - skip) {
        break;
      }
      if (skip == 0) {
        composer.compose(out, k, 0, length);
      } else {
        composer.putHeader(out, k, (int) Math.min(skip, RESPONSE_HEADER_BYTES));
        if (!composer.copy(out, k, from, length - from)) {
          // its header went out with the length it no longer has: nothing left to say
          throw new IOException("served file is shorter than its registration");
        }
      }
    }
    out.flip();
    long offered = out.remaining();
    long written;
    if (large < 0) {
      written = conn.channel().write(out);
    } else {
      offered += queue.length(large) - dataFrom;
      written = sendLarge(out, large, dataFrom);
    }
    if (written > 0) {
      conn.progressed();
      sent(written);
    }
    return written < offered ? -1 : written;
  }

  /** Whether the k-th response's data goes with sendfile (the rest after its first segment). */
  private boolean sendsFile(int k) {
    MemoryPiece m = queue.region(k).memory();
    return m.isFile() && service.sendfile();
  }

  /** Writes {@code staged}, then the k-th response's data from {@code dataFrom} on. */
  private long sendLarge(ByteBuffer staged, int k, int dataFrom) throws IOException {
    SocketChannel ch = conn.channel();
    MemoryPiece m = queue.region(k).memory();
    int offset = queue.offset(k) + dataFrom;
    int length = queue.length(k) - dataFrom;
    if (m.isFile() && service.sendfile()) {
      long w = staged.hasRemaining() ? ch.write(staged) : 0;
      if (staged.hasRemaining()) {
        return w;
      }
      long position = m.fileOffset() + offset;
      long n = m.file().transferTo(position, length, ch);
      if (n == 0 && m.file().size() <= position) {
        // transferTo sends nothing past the end of the file, and the header is out
        throw new IOException("served file is shorter than its registration");
      }
      return w + n;
    }
    ByteBuffer v = conn.buffers().view(m);
    v.limit(offset + length).position(offset);
    ByteBuffer[] g = conn.buffers().gather();
    g[0] = staged;
    g[1] = v;
    try {
      return ch.write(g);
    } finally {
      g[0] = null;
      g[1] = null;
    }
  }

  /** {@code written} bytes left: retires the responses they complete. */
  private void sent(long written) {
    long w = written;
    while (w > 0) {
      long rest = RESPONSE_HEADER_BYTES + (long) queue.length(0) - sentOfHead;
      if (w < rest) {
        sentOfHead += w;
        return;
      }
      w -= rest;
      if (queue.status(0) == STATUS_OK) {
        service.metrics().readServed(queue.length(0));
      }
      queue.pop();
      sentOfHead = 0;
      withdrawnSince = 0;
    }
  }

  /** A response not yet started whose region was withdrawn is refused instead (and released). */
  private void refuseIfWithdrawn(int k) {
    TcpRegion r = queue.region(k);
    if (r != null && !r.isOpen()) {
      queue.refuse(k, STATUS_DEREGISTERED);
    }
  }

  @Override
  public boolean hasPendingOutput() {
    return !queue.isEmpty();
  }

  /** Responses owed; a request read in part is not work (a peer stalled in one idles). */
  @Override
  public boolean busy() {
    return !queue.isEmpty();
  }

  /** While responses are owed: four times per withdraw timeout, for their regions' withdrawal. */
  @Override
  public long deadline(long now) {
    return queue.isEmpty() ? Long.MAX_VALUE : now + Math.max(1, service.withdrawTimeoutNanos() / 4);
  }

  @Override
  public Refusal check(long now) {
    int size = queue.size();
    for (int k = sentOfHead > 0 ? 1 : 0; k < size; k++) {
      refuseIfWithdrawn(k);
    }
    TcpRegion head = size == 0 || sentOfHead == 0 ? null : queue.region(0);
    if (head == null || head.isOpen()) {
      withdrawnSince = 0;
      return null;
    }
    if (withdrawnSince == 0) {
      withdrawnSince = now | 1;
      return null;
    }
    return now - withdrawnSince > service.withdrawTimeoutNanos() ? Refusal.WITHDRAWN : null;
  }

  @Override
  public void closed() {
    queue.clear();
  }
}
