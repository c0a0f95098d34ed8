/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.LocalSideException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.engine.CountedErrorHandler;
import io.rdmashuffle.transport.engine.ErrorHandler;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.NonceHistory;
import io.rdmashuffle.transport.handshake.Purpose;
import io.rdmashuffle.transport.handshake.ServerHandshake;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one authenticated connection server of a process: it owns the TCP port every transport of the
 * process serves on. An accept thread admits connections within the handshake bounds and hands each
 * to one of a few I/O threads ({@link IoLoop}), which run the handshake as bytes arrive and then
 * give the connection to the service of the purpose it proved: the tcp transport's READ responder,
 * or the calls ({@link #serveCalls}). No thread and no buffer per connection: a connection in its
 * handshake holds about 1 KiB and a descriptor, an idle authenticated one about 2 KiB. Every bound
 * is a setting; every refusal is logged (rate-limited) and counted in the transport's counters. It
 * also opens this process's outgoing CALL connections ({@link #calls()}).
 *
 * <p>Created before the transport, by whoever starts it (the node's transport selector), and owned
 * by the transport once that started: closed with it. Thread-safe.
 */
public final class ConnectionServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionServer.class);

  /** Receive buffer of accepted sockets: see the tcp transport's READ request direction. */
  static final int SOCKET_RECEIVE_BYTES = 256 * 1024;

  private static final int NONCE_HISTORY = 4096;

  private final ServerLimits limits;
  private final ApplicationSecrets secrets;
  private final TransportMetrics metrics;
  private final RefusalLog log;
  private final Admission admission;
  private final NonceHistory nonces;
  private final ServerSocketChannel listener;
  private final PeerAddress address;
  private final IoLoop[] loops;
  private final AtomicInteger nextLoop = new AtomicInteger();
  private final Acceptor acceptor;
  private final Map<Purpose, ConnectionService> services = new ConcurrentHashMap<>();
  private final CallWorkers workers;
  private final CallService callService;
  private final CallClient calls;
  private final ErrorHandler errors;

  /** Runs for every accepted socket before anything else: a seam for tests that inject faults. */
  private volatile Consumer<SocketChannel> onAccept = ch -> {};

  private volatile boolean closed;

  /**
   * Binds {@code host} and the {@code port} setting, with the bounds of {@code conf}; peers reach
   * it at {@code host}.
   */
  public static ConnectionServer start(
      RdmaConf conf, ApplicationSecrets secrets, TransportMetrics metrics, String host)
      throws IOException {
    return start(conf, secrets, metrics, host, host);
  }

  /**
   * Binds {@code bindHost} ("0.0.0.0": every address of the host) and the {@code port} setting;
   * peers reach it at {@code host}.
   */
  public static ConnectionServer start(
      RdmaConf conf,
      ApplicationSecrets secrets,
      TransportMetrics metrics,
      String bindHost,
      String host)
      throws IOException {
    return new ConnectionServer(
        ServerLimits.from(conf),
        secrets,
        metrics,
        bindHost,
        conf.get(RdmaShuffleConfig.PORT),
        host);
  }

  /**
   * Binds {@code bindHost:port} (0: any free port) and starts serving calls; the address peers
   * reach it at is {@code advertisedHost} with the bound port.
   */
  public ConnectionServer(
      ServerLimits limits,
      ApplicationSecrets secrets,
      TransportMetrics metrics,
      String bindHost,
      int port,
      String advertisedHost)
      throws IOException {
    this.limits = limits;
    this.secrets = secrets;
    this.metrics = metrics;
    this.log = new RefusalLog(metrics);
    this.admission = new Admission(limits);
    this.nonces = new NonceHistory(NONCE_HISTORY, 2 * limits.handshakeTimeoutNanos());
    this.listener = ServerSocketChannel.open();
    this.loops = new IoLoop[limits.ioThreads()];
    this.workers = new CallWorkers(limits.callWorkers(), limits.callQueue(), "rdma-call");
    this.errors = new CountedErrorHandler(metrics::engineError);
    try {
      listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      listener.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_RECEIVE_BYTES);
      listener.bind(new InetSocketAddress(bindHost, port), Math.min(limits.maxHandshakes(), 4096));
      this.address =
          new PeerAddress(
              advertisedHost, ((InetSocketAddress) listener.getLocalAddress()).getPort());
      for (int i = 0; i < loops.length; i++) {
        loops[i] = new IoLoop(this, i, errors);
      }
    } catch (IOException | RuntimeException e) {
      closeAll();
      throw e;
    }
    this.callService = new CallService(this, workers);
    services.put(Purpose.CALL, callService);
    this.calls = new CallClient(this, secrets);
    for (IoLoop l : loops) {
      l.start();
    }
    this.acceptor = new Acceptor(this, listener, errors);
    acceptor.start();
    // now, while the process starts, not in the first connection a task waits for
    Handshake.warmUp();
    LOG.debug("connection server listening on {} with {} I/O threads", address, loops.length);
  }

  /** Where peers reach this server. */
  public PeerAddress address() {
    return address;
  }

  public ServerLimits limits() {
    return limits;
  }

  public TransportMetrics metrics() {
    return metrics;
  }

  /**
   * Hands connections authenticated for {@code purpose} to {@code service} (the tcp transport
   * serves READ). Calls are served by the server itself: use {@link #serveCalls}.
   *
   * @throws IllegalStateException when the purpose is served already
   */
  public void serve(Purpose purpose, ConnectionService service) {
    if (purpose == Purpose.CALL) {
      throw new IllegalArgumentException("calls are served through serveCalls");
    }
    if (services.putIfAbsent(purpose, service) != null) {
      throw new IllegalStateException(purpose + " is served already on " + address);
    }
  }

  /** Stops handing new connections to {@code service} (those it has stay with it). */
  public void stopServing(Purpose purpose, ConnectionService service) {
    services.remove(purpose, service);
  }

  /** Answers calls of {@code service} with {@code handler}; replaces an earlier handler. */
  public void serveCalls(int service, CallHandler handler) {
    callService.serve(service, handler);
  }

  /** Stops answering calls of {@code service} with {@code handler}. */
  public void stopServingCalls(int service, CallHandler handler) {
    callService.stopServing(service, handler);
  }

  /**
   * Opens an authenticated connection to {@code peer} for {@code purpose}, from {@code local}
   * (null: the system picks), proving {@code secret} of {@code application}, on one of this
   * server's I/O threads and within {@code connect.timeout}; once both sides proved it, {@code
   * sessions} makes the session that drives it (on the I/O thread). The future completes with that
   * session (on the I/O thread), or fails with {@link
   * io.rdmashuffle.transport.PeerUnreachableException} (no connection and handshake in time, a busy
   * peer, one that does not serve the purpose), {@link
   * io.rdmashuffle.transport.AuthenticationException} or {@link
   * io.rdmashuffle.transport.ConnectionLostException} (the server closed). Any thread.
   */
  public <S extends Session> CompletableFuture<S> open(
      PeerAddress peer,
      InetAddress local,
      String application,
      byte[] secret,
      Purpose purpose,
      BiFunction<Connection, Handshake.Result, S> sessions) {
    CompletableFuture<S> opened = new CompletableFuture<>();
    if (closed) {
      opened.completeExceptionally(
          new LocalSideException("the transport is closed", peer, null, null));
      return opened;
    }
    ClientConnection<S> c;
    try {
      c = new ClientConnection<>(this, peer, local, application, secret, purpose, sessions, opened);
    } catch (IOException e) {
      opened.completeExceptionally(
          new LocalSideException("could not open a socket: " + e.getMessage(), peer, null, e));
      return opened;
    }
    nextLoop().register(c);
    return opened;
  }

  /** This process's calls to other processes, over the server's I/O threads. */
  public CallClient calls() {
    return calls;
  }

  /** Connections in their handshake and authenticated ones (tests, the doctor). */
  public int[] connectionCounts() {
    return new int[] {admission.handshakes(), admission.connections()};
  }

  /**
   * Closes every authenticated connection of {@code application} (reads in flight fail as lost):
   * its serving ended. New ones are refused once its secret is gone. Returns at once; the I/O
   * threads close them.
   */
  public void closeApplication(String application) {
    for (IoLoop l : loops) {
      l.execute(() -> l.closeApplication(application));
    }
  }

  /** Test seam: {@code hook} runs for every accepted socket before the server handles it. */
  void onAccept(Consumer<SocketChannel> hook) {
    this.onAccept = hook;
  }

  // ------------------------------------------------------------ for the server's parts

  RefusalLog log() {
    return log;
  }

  Admission admission() {
    return admission;
  }

  ConnectionService service(Purpose purpose) {
    return services.get(purpose);
  }

  ServerHandshake newHandshake() {
    return new ServerHandshake(secrets, nonces, services::containsKey);
  }

  /**
   * The I/O thread for a new connection, in turn; never the calling one when there are others: a
   * caller on an I/O thread that waits for its connection must not wait for its own thread.
   */
  IoLoop nextLoop() {
    IoLoop l = loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
    if (l.inLoop() && loops.length > 1) {
      l = loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
    }
    return l;
  }

  /** The accept thread took {@code ch} off the listening socket: admit it or refuse it. */
  void accepted(SocketChannel ch) throws IOException {
    onAccept.accept(ch);
    InetSocketAddress remote = (InetSocketAddress) ch.getRemoteAddress();
    ServerConnection c = new ServerConnection(this, ch, remote, nextLoop());
    Refusal bound = admission.tryHandshake(remote.getAddress(), c);
    if (bound != null) {
      log.refused(bound, "a connection from " + remote, "a handshake bound is reached", null);
      abort(ch);
      return;
    }
    try {
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
      c.home().register(c);
    } catch (IOException | RuntimeException | Error e) {
      admission.handshakeEnded(c);
      throw e;
    }
    if (closed) {
      abort(ch);
    }
  }

  /** Closes with a reset: a refused peer leaves nothing behind here (no TIME_WAIT). */
  private static void abort(SocketChannel ch) {
    try {
      ch.setOption(StandardSocketOptions.SO_LINGER, 0);
    } catch (IOException | RuntimeException e) {
      // closing it plainly is fine too
    }
    try {
      ch.close();
    } catch (IOException e) {
      // refused either way
    }
  }

  /**
   * Stops accepting, closes every connection (served sessions release what they hold, calls in
   * flight fail as lost) and ends every thread. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    calls.close();
    if (acceptor != null) {
      acceptor.close();
    }
    closeAll();
  }

  private void closeAll() {
    try {
      listener.close();
    } catch (IOException e) {
      // closing
    }
    for (IoLoop l : loops) {
      if (l != null) {
        l.close();
      }
    }
    workers.close();
  }
}
