package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;

import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.BoundedReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.RemoteAccessException;
import io.rdmashuffle.transport.TransportException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader's side of one tcp connection: posts READ requests and lands each response straight
 * in its READ's target memory.
 *
 * <p>Threads: posting threads assign a slot to each READ under {@code state} and hand it to
 * whoever holds {@code send} (the first poster to get it writes every pending request with one
 * write: the doorbell); one receiver thread per connection reads responses, fills targets and
 * calls listeners. The receiver is the only thread that writes into targets, so it is also the
 * one that fails the READs in flight when the connection ends: no target is written after its
 * READ was reported. Nothing is allocated per READ (slots are arrays, queues grow once).
 */
final class TcpReadChannel extends BoundedReadChannel {
  private static final Logger LOG = LoggerFactory.getLogger(TcpReadChannel.class);
  private static final int IN_BYTES = 64 * 1024;
  private static final int MAX_FRAMES_PER_WRITE = 1024;

  private final TcpTransport transport;
  private final TransportMetrics metrics;
  private final SocketChannel ch;
  private final int maxRequests;
  private final long timeoutNanos;

  // guarded by state
  private final ReadOp[] inflight;
  private final long[] issuedAt;
  private final int[] freeSlots;
  private int freeCount;
  /** Slots assigned but not yet written, as a ring. */
  private final int[] toSend;
  private int toSendHead;
  private int toSendCount;
  /** READs found overdue by {@link #checkTimeouts}; empty until then. */
  private Set<ReadOp> timedOut = Set.of();

  private final ReentrantLock send = new ReentrantLock();
  private final ByteBuffer sendBuffer;

  private final ByteBuffer in = ByteBuffer.allocateDirect(IN_BYTES);
  private final IdentityHashMap<RegisteredRegion, ByteBuffer> views = new IdentityHashMap<>();
  /** Whether the last response's data was too large for the staging buffer. */
  private boolean afterLarge;
  private final Thread receiver;

  TcpReadChannel(
      TcpTransport transport,
      PeerAddress peer,
      String application,
      SocketChannel ch,
      int maxRequests,
      long maxBytes,
      long timeoutNanos) {
    super(peer, application, maxRequests, maxBytes);
    this.transport = transport;
    this.metrics = transport.metrics();
    this.ch = ch;
    this.maxRequests = maxRequests;
    this.timeoutNanos = timeoutNanos;
    this.inflight = new ReadOp[maxRequests];
    this.issuedAt = new long[maxRequests];
    this.freeSlots = new int[maxRequests];
    for (int i = 0; i < maxRequests; i++) {
      freeSlots[i] = maxRequests - 1 - i;
    }
    this.freeCount = maxRequests;
    this.toSend = new int[maxRequests];
    this.sendBuffer =
        ByteBuffer.allocateDirect(REQUEST_BYTES * Math.min(maxRequests, MAX_FRAMES_PER_WRITE));
    in.flip();
    this.receiver = new Thread(this::receive, "rdma-tcp-recv-" + peer);
    receiver.setDaemon(true);
    receiver.start();
  }

  /** Assigns a slot; the frame goes out with the next drain. Under the state lock. */
  @Override
  protected void issue(ReadOp op) {
    int slot = freeSlots[--freeCount];
    inflight[slot] = op;
    issuedAt[slot] = System.nanoTime();
    toSend[(toSendHead + toSendCount) % maxRequests] = slot;
    toSendCount++;
  }

  @Override
  protected void afterIssue() {
    drainSends();
  }

  /**
   * Writes every assigned request, unless another thread is writing (it will pick ours up after
   * its write: it checks again after letting go of the send lock).
   */
  void drainSends() {
    while (true) {
      if (!send.tryLock()) {
        return;
      }
      try {
        while (encodePending() > 0) {
          sendBuffer.flip();
          while (sendBuffer.hasRemaining()) {
            ch.write(sendBuffer);
          }
          sendBuffer.clear();
        }
      } catch (IOException e) {
        closeWith(new ConnectionLostException("sending READ requests failed", peer, null, e));
      } finally {
        send.unlock();
      }
      state.lock();
      try {
        if (toSendCount == 0 || closingLocked() != null) {
          return;
        }
      } finally {
        state.unlock();
      }
    }
  }

  /** Moves assigned requests into the send buffer; returns how many. Under the send lock. */
  private int encodePending() {
    state.lock();
    try {
      if (closingLocked() != null) {
        return 0;
      }
      int n = 0;
      while (toSendCount > 0 && sendBuffer.remaining() >= REQUEST_BYTES) {
        int slot = toSend[toSendHead];
        toSendHead = (toSendHead + 1) % maxRequests;
        toSendCount--;
        ReadOp op = inflight[slot];
        int p = sendBuffer.position();
        sendBuffer.putInt(p + REQUEST_ID_OFFSET, slot);
        sendBuffer.putInt(p + REQUEST_RKEY_OFFSET, op.rkey());
        sendBuffer.putInt(p + REQUEST_LENGTH_OFFSET, op.length());
        sendBuffer.putInt(p + REQUEST_RESERVED_OFFSET, 0);
        sendBuffer.putLong(p + REQUEST_ADDRESS_OFFSET, op.remoteAddress());
        sendBuffer.position(p + REQUEST_BYTES);
        n++;
      }
      return n;
    } finally {
      state.unlock();
    }
  }

  private void receive() {
    TransportException cause = null;
    try {
      while (true) {
        receiveOne();
      }
    } catch (IOException | RuntimeException e) {
      cause = closingCause();
      if (cause == null) {
        cause =
            new ConnectionLostException(
                e instanceof EOFException ? "peer closed the connection" : "connection broke",
                peer,
                null,
                e);
      }
      if (e instanceof RuntimeException) {
        LOG.error("READ connection to {} failed", peer, e);
      }
    } finally {
      closeWith(cause);
      endAll();
      DirectMemory.free(in);
      transport.channelEnded(this);
    }
  }

  private void receiveOne() throws IOException {
    fill(RESPONSE_HEADER_BYTES, afterLarge);
    int p = in.position();
    int slot = in.getInt(p + RESPONSE_ID_OFFSET);
    int status = in.getInt(p + RESPONSE_STATUS_OFFSET);
    int length = in.getInt(p + RESPONSE_LENGTH_OFFSET);
    in.position(p + RESPONSE_HEADER_BYTES);
    ReadOp op;
    state.lock();
    try {
      op = slot >= 0 && slot < maxRequests ? inflight[slot] : null;
    } finally {
      state.unlock();
    }
    if (op == null || (status == STATUS_OK && length != op.length())) {
      throw new IOException("protocol error: response for request " + slot + " not in flight");
    }
    if (status != STATUS_OK) {
      complete(slot, op, new RemoteAccessException(reasonOf(status), peer, op));
      return;
    }
    ByteBuffer v = viewOf(op.target()).clear();
    int offset = (int) op.targetOffset();
    int staged = Math.min(in.remaining(), length);
    v.put(offset, in, in.position(), staged);
    in.position(in.position() + staged);
    afterLarge = staged < length;
    if (afterLarge) {
      v.limit(offset + length).position(offset + staged);
      while (v.hasRemaining()) {
        if (ch.read(v) < 0) {
          throw new EOFException("peer closed the connection in the middle of a READ");
        }
      }
    }
    complete(slot, op, null);
  }

  /**
   * Makes at least {@code n} bytes readable in {@code in}. After a large response the next one
   * is likely large too: then only its header is read, so its data lands in the target directly
   * instead of passing through the staging buffer.
   */
  private void fill(int n, boolean headerOnly) throws IOException {
    if (in.remaining() >= n) {
      return;
    }
    in.compact();
    if (headerOnly) {
      in.limit(n);
    }
    while (in.position() < n) {
      if (ch.read(in) < 0) {
        throw new EOFException("peer closed the connection");
      }
    }
    in.flip();
  }

  private ByteBuffer viewOf(RegisteredRegion target) {
    ByteBuffer v = views.get(target);
    if (v == null) {
      if (views.size() >= 256) {
        views.clear();
      }
      v = target.memory().buffer().duplicate();
      views.put(target, v);
    }
    return v;
  }

  /** Frees the slot, admits waiting READs, tells the listener. Receiver thread only. */
  private void complete(int slot, ReadOp op, TransportException failure) {
    long latency;
    boolean admitted;
    state.lock();
    try {
      inflight[slot] = null;
      latency = System.nanoTime() - issuedAt[slot];
      freeSlots[freeCount++] = slot;
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
      drainSends();
    }
  }

  @Override
  protected void fail(ReadOp op, TransportException failure) {
    metrics.failure(failure.kind());
    transport.deliver(op, failure);
  }

  /** Fails everything in flight and waiting; the receiver's last act. */
  private void endAll() {
    TransportException cause;
    Set<ReadOp> late;
    List<ReadOp> ops = new ArrayList<>();
    state.lock();
    try {
      cause = closingLocked();
      late = timedOut;
      for (int slot = 0; slot < maxRequests; slot++) {
        ReadOp op = inflight[slot];
        if (op != null) {
          inflight[slot] = null;
          freeSlots[freeCount++] = slot;
          ops.add(op);
        }
      }
      toSendCount = 0;
      ops.addAll(endLocked());
    } finally {
      state.unlock();
    }
    for (ReadOp op : ops) {
      op.target().release();
      TransportException e =
          late.contains(op)
              ? new ReadTimeoutException("READ timed out", peer, op, null)
              : new ConnectionLostException(
                  "connection ended with the READ in flight", peer, op, cause);
      fail(op, e);
    }
  }

  /** Called by the transport's timer: fails the connection when a READ is overdue. */
  void checkTimeouts(long now) {
    Set<ReadOp> late = null;
    state.lock();
    try {
      if (closingLocked() != null || freeCount == maxRequests) {
        return;
      }
      for (int slot = 0; slot < maxRequests; slot++) {
        ReadOp op = inflight[slot];
        if (op != null && now - issuedAt[slot] > timeoutNanos) {
          if (late == null) {
            late = Collections.newSetFromMap(new IdentityHashMap<>());
          }
          late.add(op);
        }
      }
      if (late == null) {
        return;
      }
      timedOut = late;
    } finally {
      state.unlock();
    }
    closeWith(
        new ReadTimeoutException(
            late.size() + " READ(s) exceeded the read timeout; connection closed", peer, null,
            null));
  }

  /** Records why the connection closes (first cause wins) and closes the socket. */
  private void closeWith(TransportException cause) {
    state.lock();
    try {
      closeLocked(cause);
    } finally {
      state.unlock();
    }
    TcpResponder.closeQuietly(ch);
  }

  @Override
  public void close() {
    closeWith(new ConnectionLostException("connection closed locally", peer, null, null));
  }
}
