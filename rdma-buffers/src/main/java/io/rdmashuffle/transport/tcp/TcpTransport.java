/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.ServerConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.LocalSideException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.engine.ListenerCalls;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.Purpose;
import io.rdmashuffle.transport.provider.ConnectionServerTransport;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.server.Connection;
import java.io.Closeable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one-sided READ transport in software: what a NIC does for verbs, done by the process's
 * connection server over TCP ({@link TcpReadService} serves every connection authenticated for
 * READ, without a thread per connection). Same semantics as verbs: READs name {@code (address,
 * rkey, length)}, the serving side checks rkey, bounds and application, and no shuffle code runs
 * there. One instance per process.
 */
public final class TcpTransport extends ConnectionServerTransport {
  /**
   * Socket buffer for the direction that carries requests (reader's send, responder's receive):
   * large enough for every request frame a connection may have in flight at the default bound, so
   * writing requests never waits for the responder, whatever it is doing. Data directions keep
   * kernel autotuning.
   */
  static final int SOCKET_BUFFER_BYTES = 256 * 1024;

  private final ApplicationSecrets secrets;
  private final TcpRegistrar registrar;
  private final TcpReadService readService;
  private final Set<TcpReadChannel> channels = ConcurrentHashMap.newKeySet();
  private final long connectTimeoutMillis;
  private final long readTimeoutNanos;
  private final long idleNanos;
  private final int maxRequests;
  private final long maxBytes;
  private volatile boolean closed;

  private TcpTransport(TransportContext context) {
    super(context);
    RdmaConf conf = context.conf();
    this.secrets = context.secrets();
    this.registrar = new TcpRegistrar(metrics.memory());
    this.connectTimeoutMillis = conf.get(RdmaShuffleConfig.CONNECT_TIMEOUT).toMillis();
    this.readTimeoutNanos = conf.get(RdmaShuffleConfig.READ_TIMEOUT).toNanos();
    this.idleNanos = conf.get(ServerConfig.SERVER_IDLE_TIMEOUT).toNanos();
    this.maxRequests = conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_READS);
    this.maxBytes = conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_BYTES);
    this.readService =
        new TcpReadService(
            registrar.table(),
            metrics,
            server.limits().sendfile(),
            server.limits().withdrawTimeoutNanos());
  }

  /** Starts the transport on the context's connection server; it owns the server from then on. */
  public static TcpTransport start(TransportContext context) throws TransportStartException {
    try {
      TcpTransport t = new TcpTransport(context);
      context.server().serve(Purpose.READ, t.readService);
      return t;
    } catch (RuntimeException e) {
      throw new TransportStartException("tcp transport could not start: " + e.getMessage(), e);
    }
  }

  @Override
  public TransportKind kind() {
    return TransportKind.TCP;
  }

  @Override
  public TcpRegistrar registrar() {
    return registrar;
  }

  @Override
  public ReadChannel connect(PeerAddress peer, String application) throws TransportException {
    if (closed) {
      throw failed(new LocalSideException("the tcp transport is closed", peer, null, null));
    }
    byte[] secret = secrets.secretOf(application);
    if (secret == null) {
      throw failed(
          new AuthenticationException(
              "no secret known for application " + application, peer, null, null));
    }
    CompletableFuture<TcpReadChannel> opened =
        server.open(
            peer,
            null,
            application,
            secret,
            Purpose.READ,
            (conn, proven) ->
                new TcpReadChannel(
                    this,
                    peer,
                    application,
                    requestDirection(conn),
                    proven.clientToServer(),
                    maxRequests,
                    maxBytes,
                    readTimeoutNanos,
                    idleNanos));
    TcpReadChannel c;
    try {
      // the connection server enforces connect.timeout; the margin covers its I/O thread's delay
      c = opened.get(connectTimeoutMillis + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw failed(
          e.getCause() instanceof TransportException t
              ? t
              : new PeerUnreachableException("could not connect: " + e.getCause(), peer, null, e));
    } catch (TimeoutException e) {
      opened.thenAccept(TcpReadChannel::close);
      throw failed(
          new PeerUnreachableException(
              "no connection and handshake within " + connectTimeoutMillis + " ms", peer, null, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      opened.thenAccept(TcpReadChannel::close);
      throw failed(new PeerUnreachableException("interrupted while connecting", peer, null, e));
    }
    channels.add(c);
    if (closed) {
      c.close();
    }
    if (!c.isOpen()) {
      channels.remove(c); // it ended before it was added
    }
    return c;
  }

  /**
   * The request direction's socket buffer of a new READ connection: large enough for every request
   * frame it may have in flight at the default bound, so posting never waits for the responder.
   */
  private static Connection requestDirection(Connection conn) {
    try {
      conn.channel().setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
    } catch (IOException e) {
      // the default buffer: requests that do not fit wait for the socket, written by its I/O thread
    }
    return conn;
  }

  /** Calls a READ's listener; a listener that throws is logged and counted, never propagated. */
  void deliver(ReadOp op, TransportException failure) {
    ListenerCalls.deliver(op, failure, metrics);
  }

  void channelEnded(TcpReadChannel c) {
    channels.remove(c);
  }

  /** Live connections this process opened (tests). */
  public int openConnections() {
    return channels.size();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.close();
    for (TcpReadChannel c : channels) {
      c.close();
    }
    registrar.close();
  }

  static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing after a failure: the first failure is what gets reported
    }
  }
}
