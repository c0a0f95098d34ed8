/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.BoundedReadChannel;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.server.Connection;
import io.rdmashuffle.transport.server.Session;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader's side of one tcp connection, driven by one of the connection server's I/O threads as
 * its serving side is: READs admitted by {@link BoundedReadChannel}'s bounds go into a {@link
 * WorkRequestTable} (their slot is the request id), a {@link ReadRequestWriter} sends them, and a
 * {@link ReadResponseReader} lands each response in its READ's target as bytes arrive and completes
 * it here. No thread of its own.
 *
 * <p>Threads: posting threads issue under {@code state} and ring the doorbell after; the I/O thread
 * completes READs, checks for overdue ones, and when the connection ends fails everything in flight
 * (it is the only thread writing into targets). Closing from any thread records why at once and
 * leaves the rest to the I/O thread.
 */
final class TcpReadChannel extends BoundedReadChannel implements Session {
  private static final Logger LOG = LoggerFactory.getLogger(TcpReadChannel.class);

  private final TcpTransport transport;
  private final TransportMetrics metrics;
  private final Connection conn;
  private final long timeoutNanos;
  private final long idleNanos;

  /** When a READ was last issued or completed; guarded by state. */
  private long lastUsed = System.nanoTime();

  /** Guarded by state. */
  private final WorkRequestTable table;

  /** READs found overdue by {@link #check}; guarded by state. */
  private Set<ReadOp> timedOut = Set.of();

  /** When the READs in flight are checked for being overdue next; guarded by state. */
  private long nextOverdueCheck;

  private final ReadRequestWriter writer;
  private final ReadResponseReader reader = new ReadResponseReader(this);

  /** The I/O exception that broke the connection, if one did (I/O thread). */
  private IOException broke;

  private volatile boolean ended;

  TcpReadChannel(
      TcpTransport transport,
      PeerAddress peer,
      String application,
      Connection conn,
      FrameMac requests,
      int maxRequests,
      long maxBytes,
      long timeoutNanos,
      long idleNanos) {
    super(peer, application, maxRequests, maxBytes);
    this.transport = transport;
    this.metrics = transport.metrics();
    this.conn = conn;
    this.timeoutNanos = timeoutNanos;
    this.idleNanos = idleNanos;
    this.table = new WorkRequestTable(maxRequests);
    this.writer = new ReadRequestWriter(this, conn, requests, maxRequests);
  }

  /** Under the state lock: the READ is within the bounds; its frame goes with the next drain. */
  @Override
  protected void issue(ReadOp op) {
    long now = System.nanoTime();
    if (table.isEmpty()) {
      nextOverdueCheck = now + timeoutNanos;
    }
    table.add(op, now);
    lastUsed = now;
  }

  @Override
  protected void afterIssue() {
    writer.drain();
    long check;
    state.lock();
    try {
      check = nextOverdueCheck;
    } finally {
      state.unlock();
    }
    conn.due(check); // the I/O thread may sleep longer: an idle connection's deadline is far
  }

  /** Copies up to a write's worth of unsent requests into {@code w}'s arrays; how many. */
  int takeUnsent(ReadRequestWriter w) {
    state.lock();
    try {
      if (closingLocked() != null) {
        return 0;
      }
      int n = 0;
      while (n < w.ids.length && table.hasUnsent()) {
        int slot = table.nextUnsent();
        ReadOp op = table.get(slot);
        w.ids[n] = slot;
        w.rkeys[n] = op.rkey();
        w.lengths[n] = op.length();
        w.addresses[n] = op.remoteAddress();
        n++;
      }
      return n;
    } finally {
      state.unlock();
    }
  }

  /** Whether requests wait to be written (and the channel is open). */
  boolean hasUnsent() {
    state.lock();
    try {
      return table.hasUnsent() && closingLocked() == null;
    } finally {
      state.unlock();
    }
  }

  /** The READ in flight in {@code slot}, or null. */
  ReadOp inFlight(int slot) {
    state.lock();
    try {
      return table.get(slot);
    } finally {
      state.unlock();
    }
  }

  /** Whether responses are still taken (the channel has not ended). I/O thread. */
  boolean receiving() {
    return !ended;
  }

  /** Frees the slot, admits waiting READs, tells the listener. I/O thread only. */
  void complete(int slot, ReadOp op, TransportException failure) {
    long latency;
    boolean admitted;
    state.lock();
    try {
      long now = System.nanoTime();
      latency = now - table.issuedAt(slot);
      lastUsed = now;
      table.remove(slot);
      admitted = releaseLocked(1, op.length());
    } finally {
      state.unlock();
    }
    op.target().release();
    if (failure == null) {
      metrics.readCompleted(op.length(), latency);
      transport.deliver(op, null);
    } else {
      fail(op, failure);
    }
    if (admitted) {
      writer.drain();
    }
  }

  @Override
  protected void fail(ReadOp op, TransportException failure) {
    metrics.failure(failure.kind());
    transport.deliver(op, failure);
  }

  // ------------------------------------------------------------ Session (the I/O thread)

  @Override
  public void readable() throws IOException {
    reader.readable(conn.channel(), conn.buffers().in());
  }

  @Override
  public void writable() throws IOException {
    writer.flush();
  }

  @Override
  public boolean hasPendingOutput() {
    return false; // a reader's requests: the READ timeout covers a peer that takes none
  }

  @Override
  public boolean busy() {
    state.lock();
    try {
      return !table.isEmpty();
    } finally {
      state.unlock();
    }
  }

  /**
   * Fails the connection when a READ is overdue, and closes it when it was idle for half the
   * server's idle timeout (before the server would: a READ never meets a connection the server is
   * closing; the connection pool opens a fresh one). READs in flight are looked at four times per
   * read timeout, so an overdue one fails within a quarter of the timeout.
   */
  @Override
  public Refusal check(long now) {
    Set<ReadOp> late;
    boolean idle;
    state.lock();
    try {
      if (closingLocked() != null) {
        return null;
      }
      idle = table.isEmpty() && now - lastUsed > idleNanos / 2;
      if (idle) {
        closeLocked(
            new ConnectionLostException("connection closed after idling", peer, null, null));
      }
      if (table.isEmpty()) {
        late = null;
      } else if (now - nextOverdueCheck < 0) {
        return null;
      } else {
        nextOverdueCheck = now + Math.max(1, timeoutNanos / 4);
        late = table.overdue(now, timeoutNanos);
        if (late.isEmpty()) {
          return null;
        }
        timedOut = late;
      }
    } finally {
      state.unlock();
    }
    if (idle) {
      conn.close(null, null);
      return null;
    }
    if (late == null) {
      return null;
    }
    closeWith(
        new ReadTimeoutException(
            late.size() + " READ(s) exceeded the read timeout; connection closed",
            peer,
            null,
            null));
    return null;
  }

  @Override
  public long deadline(long now) {
    state.lock();
    try {
      return table.isEmpty() ? lastUsed + idleNanos / 2 : nextOverdueCheck;
    } finally {
      state.unlock();
    }
  }

  @Override
  public void broke(IOException e) {
    broke = e;
  }

  /** The connection closed: records why, fails everything in flight and waiting. */
  @Override
  public void closed() {
    ended = true;
    TransportException cause = closingCause();
    if (cause == null) {
      cause =
          new ConnectionLostException(
              broke instanceof EOFException || broke == null
                  ? "peer closed the connection"
                  : "connection broke",
              peer,
              null,
              broke);
    }
    if (broke != null && !(broke instanceof EOFException)) {
      LOG.debug("READ connection to {} broke", peer, broke);
    }
    closeWith(cause);
    endAll();
    writer.free();
    transport.channelEnded(this);
  }

  private void endAll() {
    TransportException cause;
    Set<ReadOp> late;
    List<ReadOp> ops = new ArrayList<>();
    state.lock();
    try {
      cause = closingLocked();
      late = timedOut;
      table.removeAll(ops);
      ops.addAll(endLocked());
    } finally {
      state.unlock();
    }
    for (ReadOp op : ops) {
      op.target().release();
      fail(
          op,
          late.contains(op)
              ? new ReadTimeoutException("READ timed out", peer, op, null)
              : new ConnectionLostException(
                  "connection ended with the READ in flight", peer, op, cause));
    }
  }

  /**
   * Records why the connection closes (first cause wins) and has its I/O thread close it, which
   * then fails what is in flight. Any thread.
   */
  void closeWith(TransportException cause) {
    state.lock();
    try {
      closeLocked(cause);
    } finally {
      state.unlock();
    }
    if (!ended) {
      conn.loop().execute(() -> conn.close(null, null));
    }
  }

  @Override
  public void close() {
    closeWith(new ConnectionLostException("connection closed locally", peer, null, null));
  }
}
