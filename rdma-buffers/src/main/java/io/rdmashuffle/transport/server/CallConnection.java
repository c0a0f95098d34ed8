/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static io.rdmashuffle.transport.server.CallFrameLayout.*;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.FrameMac;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * One CALL connection this process opened to a peer, as the session that drives it once the
 * connection server has connected and authenticated it ({@link ConnectionServer#open}): sends the
 * calls handed to it (each frame tagged; those handed over before the handshake ended wait for it)
 * and completes each call's future from its answer (whose tag it checks). A connection that can't
 * be set up fails its calls with the open's failure; a call without answer by {@code read.timeout}
 * fails as timed out and closes the connection (the peer is stalled), failing the others as lost.
 * Idle for half of {@code server.idleTimeout}, it closes itself, before the server would: a call
 * never meets a connection the server is closing. The calls in flight are kept by {@link
 * InFlightCalls}, answers reassembled by {@link AnswerReader}. {@link #submit} from any thread, the
 * rest on the connection's I/O thread.
 */
final class CallConnection implements Session {
  private final CallClient client;
  private final CallClient.Key key;
  private final ServerLimits limits;

  /** Calls handed over and not yet sent; guarded by this with {@link #shut}. */
  private final Queue<PendingCall> submitted = new ConcurrentLinkedQueue<>();

  private boolean shut;

  /** Why it closed; guarded by this. */
  private TransportException closedBy;

  /** The connection, once authenticated. */
  private volatile Connection conn;

  private FrameMac requests;
  private FrameMac answers;
  private final InFlightCalls inFlight = new InFlightCalls();
  private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
  private final AnswerReader answerReader;
  private long lastActivity;
  private TransportException broke;
  private boolean ended;

  CallConnection(CallClient client, CallClient.Key key) {
    this.client = client;
    this.key = key;
    this.limits = client.server().limits();
    this.answerReader = new AnswerReader(limits.maxCallAnswerBytes());
  }

  /** Opens the connection, proving {@code secret}; calls may be handed over before and after. */
  void open(byte[] secret) {
    client
        .server()
        .open(key.peer(), key.local(), key.application(), secret, Purpose.CALL, this::established)
        .whenComplete(
            (s, e) -> {
              if (e != null) {
                end(cause(e));
              }
            });
  }

  private static TransportException cause(Throwable e) {
    Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return t instanceof TransportException te
        ? te
        : new ConnectionLostException("call connection failed: " + t, null, null, t);
  }

  CallClient.Key key() {
    return key;
  }

  private PeerAddress peer() {
    return key.peer();
  }

  /** Hands a call over; false when this connection has closed (use another). Any thread. */
  boolean submit(PendingCall call) {
    synchronized (this) {
      if (shut) {
        return false;
      }
      submitted.add(call);
    }
    Connection c = conn;
    if (c != null) {
      c.loop().execute(this::pump);
    }
    return true;
  }

  /** The handshake is done (I/O thread): sends what was handed over meanwhile. */
  private CallConnection established(Connection c, Handshake.Result result) {
    requests = result.clientToServer();
    answers = result.serverToClient();
    lastActivity = System.nanoTime();
    conn = c;
    pump();
    return this;
  }

  /** I/O thread: frames the submitted calls and sends what the socket takes. */
  private void pump() {
    if (ended || conn == null) {
      return;
    }
    PendingCall c;
    while ((c = submitted.poll()) != null) {
      int id = inFlight.add(c);
      out.addLast(
          ByteBuffer.wrap(encode(id, c.service(), c.request(), 0, c.request().length, requests)));
    }
    try {
      flush();
    } catch (IOException e) {
      end(new ConnectionLostException("sending a call failed", peer(), null, e));
    }
  }

  private void flush() throws IOException {
    while (!out.isEmpty()) {
      ByteBuffer b = out.peekFirst();
      if (conn.buffers().write(conn.channel(), b) > 0) {
        lastActivity = System.nanoTime();
      }
      if (b.hasRemaining()) {
        conn.wantWrite(true);
        return;
      }
      out.pollFirst();
    }
    conn.wantWrite(false);
  }

  @Override
  public void writable() throws IOException {
    flush();
  }

  @Override
  public void readable() throws IOException {
    int frames = 0;
    while (!ended && frames < CallSession.FRAMES_PER_TURN) {
      ByteBuffer into = answerReader.into();
      int n = conn.buffers().read(conn.channel(), into);
      if (n < 0) {
        end(new ConnectionLostException("peer closed the call connection", peer(), null, null));
        return;
      }
      if (n == 0) {
        return;
      }
      lastActivity = System.nanoTime();
      if (into.hasRemaining()) {
        continue;
      }
      AnswerReader.Answer a;
      try {
        a = answerReader.filled();
      } catch (IllegalArgumentException e) {
        end(
            new ConnectionLostException(
                "peer sent a malformed answer: " + e.getMessage(), peer(), null, null));
        return;
      }
      if (a != null) {
        frames++;
      }
      String wrong = a == null ? null : inFlight.answered(a, answers, peer(), this::fail);
      if (wrong != null) {
        end(new ConnectionLostException(wrong, peer(), null, null));
        return;
      }
    }
  }

  @Override
  public boolean hasPendingOutput() {
    return !out.isEmpty();
  }

  @Override
  public boolean busy() {
    return !inFlight.isEmpty();
  }

  @Override
  public Refusal check(long now) {
    PendingCall late = inFlight.removeLate(now);
    if (late != null) {
      ReadTimeoutException e =
          new ReadTimeoutException(
              "no answer within "
                  + TimeUnit.NANOSECONDS.toMillis(limits.callTimeoutNanos())
                  + " ms",
              peer(),
              null,
              null);
      // closed first: a caller woken by the timeout must not find this connection in the pool
      end(
          new ConnectionLostException(
              "call connection closed after a call timed out", peer(), null, e));
      fail(late, e);
      return null;
    }
    // at half the idle timeout, so that a call never races the server closing the connection
    if (idle() && now - lastActivity > limits.idleTimeoutNanos() / 2) {
      end(new ConnectionLostException("call connection idle", peer(), null, null));
    }
    return null;
  }

  @Override
  public long deadline(long now) {
    if (!inFlight.isEmpty()) {
      return inFlight.earliestDeadline();
    }
    return idle() ? lastActivity + limits.idleTimeoutNanos() / 2 : Long.MAX_VALUE;
  }

  private boolean idle() {
    return inFlight.isEmpty() && submitted.isEmpty();
  }

  @Override
  public void broke(IOException e) {
    broke = new PeerUnreachableException("call connection broke: " + e, peer(), null, e);
  }

  @Override
  public void closed() {
    end(
        broke != null
            ? broke
            : new ConnectionLostException("the call connection closed", peer(), null, null));
  }

  /** Why this connection closed, or null while it is open. Any thread. */
  synchronized TransportException closedBy() {
    return closedBy;
  }

  /** Fails every call of this connection with {@code cause} and closes it. */
  private void end(TransportException cause) {
    synchronized (this) {
      shut = true;
      if (closedBy == null) {
        closedBy = cause;
      }
    }
    if (ended) {
      return;
    }
    ended = true;
    client.closed(this);
    Connection c = conn;
    if (c != null) {
      c.close(null, null);
    }
    List<PendingCall> all = inFlight.removeAll();
    PendingCall p;
    while ((p = submitted.poll()) != null) {
      all.add(p);
    }
    out.clear();
    for (PendingCall call : all) {
      fail(call, cause);
    }
  }

  private void fail(PendingCall c, TransportException e) {
    client.server().metrics().failure(e.kind());
    c.future().completeExceptionally(e);
  }

  @Override
  public String toString() {
    return "call connection to " + peer() + " for " + key.application();
  }
}
