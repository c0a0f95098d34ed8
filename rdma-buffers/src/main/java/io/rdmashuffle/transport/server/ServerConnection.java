/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.HandshakeSide;
import io.rdmashuffle.transport.handshake.ServerHandshake;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * One accepted connection: first its handshake (a {@link ServerHandshake}, run as bytes arrive,
 * holding a handshake place of {@link Admission} and nothing else), then, once the peer proved its
 * secret and a connection place is free, the {@link Session} of the purpose it named. Enforces the
 * handshake deadline, the idle timeout and the send-progress timeout. Owned by its {@link IoLoop};
 * every method on that loop's thread.
 */
final class ServerConnection extends LoopConnection implements Admission.Holder {
  private final ConnectionServer server;
  private final IoLoop home;
  private final ServerLimits limits;
  private final InetSocketAddress remote;
  private final long acceptedAt = System.nanoTime();
  private ServerHandshake handshake;
  private boolean holdsHandshakePlace = true;
  private boolean holdsConnectionPlace;
  private long lastProgress = acceptedAt;

  /** When the session last asked to be told the socket takes bytes again (its send stalled). */
  private long stalledSince;

  ServerConnection(
      ConnectionServer server, SocketChannel ch, InetSocketAddress remote, IoLoop home) {
    super(ch);
    this.server = server;
    this.home = home;
    this.limits = server.limits();
    this.remote = remote;
  }

  /** The I/O thread this connection is handed to. */
  IoLoop home() {
    return home;
  }

  /** Its handshake place went to a newcomer (any thread): it closes on its I/O thread. */
  @Override
  public void evicted(Refusal why) {
    home.execute(
        () -> {
          if (session == null) { // it may have finished its handshake meanwhile: then it stays
            close(
                why,
                "its handshake had been idle longest when the bound was reached; a newcomer"
                    + " took its place");
          }
        });
  }

  @Override
  void handshakeBytes(int n) {
    super.handshakeBytes(n);
    server.admission().active(this);
  }

  @Override
  int initialInterest() {
    return SelectionKey.OP_READ;
  }

  @Override
  void beforeSession(int ops) throws IOException {
    if (handshake == null) {
      handshake = server.newHandshake();
    }
    handshake(handshake);
  }

  /** The peer proved its secret: takes a connection place, or tells it the server is busy. */
  @Override
  void verified(HandshakeSide side) {
    ServerHandshake h = (ServerHandshake) side;
    if (!server.admission().holds(this)) {
      close(null, null); // dropped for a newcomer meanwhile: counted when it was
      return;
    }
    Refusal bound = server.admission().tryConnection(remote.getAddress(), h.application());
    if (bound == null) {
      holdsConnectionPlace = true;
      application = h.application();
      h.accept();
    } else {
      server
          .log()
          .refused(bound, this, "a connection bound is reached; the peer was told to retry", null);
      h.refuseBusy("a connection bound (" + bound + ") is reached");
    }
  }

  @Override
  void handshakeRefused(Handshake.Refused r) {
    if (r.reason() != Handshake.Refused.Reason.BUSY) {
      server.metrics().failure(FailureKind.AUTHENTICATION);
      close(Refusal.HANDSHAKE_FAILED, r.reason() + ": " + r.getMessage());
    } else {
      close(null, null); // counted as the bound that refused it
    }
  }

  @Override
  void handshakeDone(Handshake.Result result) {
    handshake = null;
    releaseHandshakePlace();
    ConnectionService service = server.service(result.purpose());
    if (service == null) {
      close(Refusal.HANDSHAKE_FAILED, "no service for " + result.purpose() + " any more");
      return;
    }
    lastActivity = System.nanoTime();
    session = service.open(this, result);
    interest(SelectionKey.OP_READ, true);
  }

  @Override
  void checkDeadlines(long now) {
    if (session == null) {
      if (!helloReceived() && now - acceptedAt > limits.firstMessageTimeoutNanos()) {
        // what arrived while its I/O thread was busy elsewhere counts: take it first
        try {
          beforeSession(SelectionKey.OP_READ);
        } catch (IOException e) {
          failed(e);
        }
        if (closed || session != null || helloReceived()) {
          return;
        }
      }
      if (!helloReceived() && now - acceptedAt > limits.firstMessageTimeoutNanos()) {
        server.metrics().failure(FailureKind.AUTHENTICATION);
        close(
            Refusal.HANDSHAKE_TIMEOUT,
            "no first message within "
                + TimeUnit.NANOSECONDS.toMillis(limits.firstMessageTimeoutNanos())
                + " ms");
      } else if (now - acceptedAt > limits.handshakeTimeoutNanos()) {
        server.metrics().failure(FailureKind.AUTHENTICATION);
        close(
            Refusal.HANDSHAKE_TIMEOUT,
            "no handshake within "
                + TimeUnit.NANOSECONDS.toMillis(limits.handshakeTimeoutNanos())
                + " ms");
      }
      return;
    }
    if (session.hasPendingOutput()) {
      if (now - sendDeadline() > 0) {
        close(
            Refusal.SEND_TIMEOUT,
            "the peer took no bytes for "
                + TimeUnit.NANOSECONDS.toMillis(limits.sendTimeoutNanos())
                + " ms");
        return;
      }
    } else if (!session.busy() && now - lastActivity > limits.idleTimeoutNanos()) {
      close(
          Refusal.IDLE,
          "idle for " + TimeUnit.NANOSECONDS.toMillis(limits.idleTimeoutNanos()) + " ms");
      return;
    }
    Refusal why = session.check(now);
    if (why != null) {
      close(why, "closed by its " + session.getClass().getSimpleName());
    }
  }

  @Override
  long deadline() {
    if (session == null) {
      return acceptedAt
          + (helloReceived() ? limits.handshakeTimeoutNanos() : limits.firstMessageTimeoutNanos());
    }
    long own;
    if (session.hasPendingOutput()) {
      own = sendDeadline();
    } else if (!session.busy()) {
      own = lastActivity + limits.idleTimeoutNanos();
    } else {
      own = NONE; // work in progress: the session's own deadlines
    }
    return earliest(own, session.deadline(System.nanoTime()));
  }

  /** Whether the client's first message (its HELLO) has fully arrived. */
  private boolean helloReceived() {
    return handshake != null && handshake.helloReceived();
  }

  /** When output that waits must have made progress: a send stalled since then has timed out. */
  private long sendDeadline() {
    return Math.max(lastProgress, stalledSince) + limits.sendTimeoutNanos();
  }

  @Override
  void failed(Throwable t) {
    if (!closed && !(t instanceof IOException)) {
      server.log().refused(Refusal.CONNECTION_FAILED, this, "unexpected error", t);
    }
    close(null, null); // an IOException is the peer going away: not a refusal
  }

  @Override
  void shutdown() {
    close(null, null);
  }

  // ------------------------------------------------------------ Connection

  @Override
  public InetSocketAddress remote() {
    return remote;
  }

  @Override
  public void wantWrite(boolean on) {
    if (on && !wants(SelectionKey.OP_WRITE)) {
      stalledSince = System.nanoTime();
    }
    super.wantWrite(on);
  }

  @Override
  public void progressed() {
    long now = System.nanoTime();
    lastActivity = now;
    lastProgress = now;
  }

  @Override
  public void close(Refusal why, String detail) {
    if (closed) {
      return;
    }
    if (why != null) {
      server.log().refused(why, this, detail, null);
    }
    closeChannel();
    releaseHandshakePlace();
    if (holdsConnectionPlace) {
      holdsConnectionPlace = false;
      server.admission().connectionEnded(remote.getAddress(), application);
    }
    if (session != null) {
      session.closed();
    }
  }

  private void releaseHandshakePlace() {
    if (holdsHandshakePlace) {
      holdsHandshakePlace = false;
      server.admission().handshakeEnded(this);
    }
  }

  @Override
  public String toString() {
    return "connection from " + remote + (application == null ? "" : " of " + application);
  }
}
