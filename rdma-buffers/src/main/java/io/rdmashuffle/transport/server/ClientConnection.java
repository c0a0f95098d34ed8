/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ClientHandshake;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * One connection this process opens ({@link ConnectionServer#open}): connects and runs the client
 * handshake without blocking, on one of the server's I/O threads, within {@code connect.timeout};
 * then the session made for it drives it. Until then a failure completes the open's future (typed:
 * {@link PeerUnreachableException}, {@link AuthenticationException}); after, the session sees it
 * close. Every method on the loop's thread.
 */
final class ClientConnection<S extends Session> extends LoopConnection {
  private final ConnectionServer server;
  private final PeerAddress peer;
  private final InetAddress local;
  private final ClientHandshake handshake;
  private final BiFunction<Connection, Handshake.Result, S> sessions;
  private final CompletableFuture<S> opened;
  private final long connectDeadline;
  private boolean connecting = true;

  ClientConnection(
      ConnectionServer server,
      PeerAddress peer,
      InetAddress local,
      String application,
      byte[] secret,
      Purpose purpose,
      BiFunction<Connection, Handshake.Result, S> sessions,
      CompletableFuture<S> opened)
      throws IOException {
    super(open());
    this.server = server;
    this.peer = peer;
    this.local = local;
    this.application = application;
    this.handshake = new ClientHandshake(application, secret, purpose);
    this.sessions = sessions;
    this.opened = opened;
    this.connectDeadline = System.nanoTime() + server.limits().handshakeTimeoutNanos();
  }

  private static SocketChannel open() throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
      return ch;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** The typed failure of a handshake refused by either side. */
  static TransportException refusedAs(Handshake.Refused r, PeerAddress peer) {
    return switch (r.reason()) {
      case WRONG_SECRET, REFUSED, REPLAYED, REFLECTED, UNKNOWN_APPLICATION ->
          new AuthenticationException(r.getMessage(), peer, null, r);
      case BUSY ->
          new PeerUnreachableException(
              "peer is at a connection bound and refused the connection; retry later",
              peer,
              null,
              r);
      case UNKNOWN_PURPOSE ->
          new PeerUnreachableException(
              "peer does not serve this purpose (it runs another transport): " + r.getMessage(),
              peer,
              null,
              r);
      case HUNG_UP ->
          new PeerUnreachableException(
              "peer closed the connection during the handshake (a bound, or not rdma-shuffle)",
              peer,
              null,
              r);
      default ->
          new PeerUnreachableException(
              "peer is not an rdma-shuffle server we can speak to: " + r.getMessage(),
              peer,
              null,
              r);
    };
  }

  @Override
  int initialInterest() {
    return 0;
  }

  @Override
  void attached() throws IOException {
    if (local != null) {
      ch.bind(new InetSocketAddress(local, 0));
    }
    if (ch.connect(peer.socketAddress())) {
      connected();
    } else {
      interest(SelectionKey.OP_CONNECT, true);
    }
  }

  @Override
  void beforeSession(int ops) throws IOException {
    if (!connecting) {
      handshake(handshake);
    } else if ((ops & SelectionKey.OP_CONNECT) != 0 && ch.finishConnect()) {
      interest(SelectionKey.OP_CONNECT, false);
      connected();
    }
  }

  private void connected() throws IOException {
    connecting = false;
    interest(SelectionKey.OP_READ, true);
    handshake(handshake);
  }

  @Override
  void handshakeRefused(Handshake.Refused r) {
    fail(refusedAs(r, peer));
  }

  @Override
  void handshakeDone(Handshake.Result result) {
    lastActivity = System.nanoTime();
    S s;
    try {
      s = sessions.apply(this, result);
    } catch (RuntimeException e) {
      fail(new ConnectionLostException("could not start the session: " + e, peer, null, e));
      return;
    }
    session = s;
    interest(SelectionKey.OP_READ, true);
    opened.complete(s);
  }

  @Override
  void checkDeadlines(long now) {
    if (session == null) {
      if (now - connectDeadline > 0) {
        fail(
            new PeerUnreachableException(
                "no connection and handshake within "
                    + TimeUnit.NANOSECONDS.toMillis(server.limits().handshakeTimeoutNanos())
                    + " ms",
                peer,
                null,
                null));
      }
      return;
    }
    Refusal why = session.check(now);
    if (why != null) {
      close(why, "closed by its " + session.getClass().getSimpleName());
    }
  }

  @Override
  long deadline() {
    return session == null ? connectDeadline : session.deadline(System.nanoTime());
  }

  @Override
  void failed(Throwable t) {
    if (!(t instanceof IOException)) {
      server.log().refused(Refusal.CONNECTION_FAILED, this, "unexpected error", t);
    }
    if (session == null) {
      fail(
          t instanceof IOException
              ? new PeerUnreachableException("could not connect: " + t, peer, null, t)
              : new ConnectionLostException("connection failed: " + t, peer, null, t));
    } else {
      close(null, null);
    }
  }

  @Override
  void shutdown() {
    if (session == null) {
      fail(new ConnectionLostException("the transport is closed", peer, null, null));
    } else {
      close(null, null);
    }
  }

  /** Before the session: closes and fails the open with {@code e}. */
  private void fail(TransportException e) {
    closeChannel();
    opened.completeExceptionally(e);
  }

  // ------------------------------------------------------------ Connection

  @Override
  public InetSocketAddress remote() {
    return peer.socketAddress();
  }

  /** Closes the connection; {@code why} (not null only for a refusal the server counts) logged. */
  @Override
  public void close(Refusal why, String detail) {
    if (closed) {
      return;
    }
    if (why != null) {
      server.log().refused(why, this, detail, null);
    }
    closeChannel();
    if (session != null) {
      session.closed();
    } else {
      opened.completeExceptionally(
          new ConnectionLostException(
              detail == null ? "connection closed" : detail, peer, null, null));
    }
  }

  @Override
  public String toString() {
    return "connection to " + peer + " for " + application;
  }
}
