package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.BoundedReadChannel;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.FrameMac;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.WorkRequestTable;
import java.io.EOFException;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader's side of one tcp connection: READs admitted by {@link BoundedReadChannel}'s bounds go
 * into a {@link WorkRequestTable} (their slot is the request id), a {@link ReadRequestWriter} sends
 * them, and a {@link ReadResponseReader} on the connection's receiver thread lands each response in
 * its READ's target and completes it here.
 *
 * <p>Threads: posting threads issue under {@code state} and ring the doorbell after; the receiver
 * completes READs and, when the connection ends, fails everything in flight (it is the only thread
 * writing into targets); the transport's timer checks for overdue READs.
 */
final class TcpReadChannel extends BoundedReadChannel {
  private static final Logger LOG = LoggerFactory.getLogger(TcpReadChannel.class);

  private final TcpTransport transport;
  private final TransportMetrics metrics;
  private final SocketChannel ch;
  private final long timeoutNanos;
  private final long idleNanos;

  /** When a READ was last issued or completed. */
  private volatile long lastUsed = System.nanoTime();

  /** Guarded by state. */
  private final WorkRequestTable table;

  /** READs found overdue by {@link #checkTimeouts}; guarded by state. */
  private Set<ReadOp> timedOut = Set.of();

  private final ReadRequestWriter writer;
  private final Thread receiver;

  TcpReadChannel(
      TcpTransport transport,
      PeerAddress peer,
      String application,
      SocketChannel ch,
      FrameMac requests,
      int maxRequests,
      long maxBytes,
      long timeoutNanos,
      long idleNanos) {
    super(peer, application, maxRequests, maxBytes);
    this.transport = transport;
    this.metrics = transport.metrics();
    this.ch = ch;
    this.timeoutNanos = timeoutNanos;
    this.idleNanos = idleNanos;
    this.table = new WorkRequestTable(maxRequests);
    this.writer = new ReadRequestWriter(this, ch, requests, maxRequests);
    this.receiver = new Thread(new ReadResponseReader(this, ch), "rdma-tcp-recv-" + peer);
    receiver.setDaemon(true);
    receiver.start();
  }

  /** Under the state lock: the READ is within the bounds; its frame goes with the next drain. */
  @Override
  protected void issue(ReadOp op) {
    long now = System.nanoTime();
    table.add(op, now);
    lastUsed = now;
  }

  @Override
  protected void afterIssue() {
    writer.drain();
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

  /** Frees the slot, admits waiting READs, tells the listener. Receiver thread only. */
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

  /** The receiver's last act: records why, fails everything in flight and waiting. */
  void receiverEnded(Exception end) {
    TransportException cause = closingCause();
    if (cause == null) {
      cause =
          new ConnectionLostException(
              end instanceof EOFException ? "peer closed the connection" : "connection broke",
              peer,
              null,
              end);
    }
    if (end instanceof RuntimeException) {
      LOG.error("READ connection to {} failed", peer, end);
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
   * Called by the transport's timer: fails the connection when a READ is overdue, and closes it
   * when it was idle for half the server's idle timeout (before the server would: a READ never
   * meets a connection the server is closing; the connection pool opens a fresh one).
   */
  void checkTimeouts(long now) {
    Set<ReadOp> late;
    state.lock();
    try {
      if (closingLocked() != null) {
        return;
      }
      if (table.isEmpty() && now - lastUsed > idleNanos / 2) {
        closeLocked(
            new ConnectionLostException("connection closed after idling", peer, null, null));
        TcpTransport.closeQuietly(ch);
        return;
      }
      late = table.overdue(now, timeoutNanos);
      if (late.isEmpty()) {
        return;
      }
      timedOut = late;
    } finally {
      state.unlock();
    }
    closeWith(
        new ReadTimeoutException(
            late.size() + " READ(s) exceeded the read timeout; connection closed",
            peer,
            null,
            null));
  }

  /** Records why the connection closes (first cause wins) and closes the socket. */
  void closeWith(TransportException cause) {
    state.lock();
    try {
      closeLocked(cause);
    } finally {
      state.unlock();
    }
    TcpTransport.closeQuietly(ch);
  }

  @Override
  public void close() {
    closeWith(new ConnectionLostException("connection closed locally", peer, null, null));
  }
}
