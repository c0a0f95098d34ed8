package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.ServerConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.Handshake;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.Purpose;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.engine.ListenerCalls;
import io.rdmashuffle.transport.server.ConnectionServer;
import java.io.Closeable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one-sided READ transport in software: what a NIC does for verbs, done by the process's
 * connection server over TCP ({@link TcpReadService} serves every connection authenticated for
 * READ, without a thread per connection). Same semantics as verbs: READs name {@code (address,
 * rkey, length)}, the serving side checks rkey, bounds and application, and no shuffle code runs
 * there. One instance per process.
 */
public final class TcpTransport implements Transport {
  /**
   * Socket buffer for the direction that carries requests (reader's send, responder's receive):
   * large enough for every request frame a connection may have in flight at the default bound, so
   * writing requests never waits for the responder, whatever it is doing. Data directions keep
   * kernel autotuning.
   */
  static final int SOCKET_BUFFER_BYTES = 256 * 1024;

  private final TransportMetrics metrics;
  private final ApplicationSecrets secrets;
  private final ConnectionServer server;
  private final TcpRegistrar registrar;
  private final TcpReadService readService;
  private final ScheduledThreadPoolExecutor timer;
  private final Set<TcpReadChannel> channels = ConcurrentHashMap.newKeySet();
  private final long connectTimeoutMillis;
  private final long readTimeoutNanos;
  private final long idleNanos;
  private final int maxRequests;
  private final long maxBytes;
  private volatile boolean closed;

  private TcpTransport(TransportContext context, ConnectionServer server) {
    RdmaConf conf = context.conf();
    this.metrics = context.metrics();
    this.secrets = context.secrets();
    this.server = server;
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
    this.timer = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "rdma-tcp-timer"));
    timer.setRemoveOnCancelPolicy(true);
    long tick = Math.max(5, Math.min(250, conf.get(RdmaShuffleConfig.READ_TIMEOUT).toMillis() / 4));
    timer.scheduleWithFixedDelay(this::checkTimeouts, tick, tick, TimeUnit.MILLISECONDS);
  }

  /**
   * Starts the transport on the context's connection server (or on one of its own, bound to {@code
   * host} and {@code port} of the settings, when the context has none); it owns the server from
   * then on.
   */
  public static TcpTransport start(TransportContext context) throws TransportStartException {
    ConnectionServer server = context.server();
    boolean own = server == null;
    TcpTransport t = null;
    try {
      if (own) {
        server = ConnectionServer.start(context);
      }
      t = new TcpTransport(context, server);
      server.serve(Purpose.READ, t.readService);
      return t;
    } catch (IOException | RuntimeException e) {
      if (t != null) {
        t.timer.shutdownNow();
      }
      if (own && server != null) {
        server.close();
      }
      throw new TransportStartException("tcp transport could not listen: " + e.getMessage(), e);
    }
  }

  @Override
  public TransportKind kind() {
    return TransportKind.TCP;
  }

  @Override
  public PeerAddress localAddress() {
    return server.address();
  }

  @Override
  public TcpRegistrar registrar() {
    return registrar;
  }

  @Override
  public TransportMetrics metrics() {
    return metrics;
  }

  @Override
  public void serveCalls(int service, CallHandler handler) {
    server.serveCalls(service, handler);
  }

  @Override
  public CompletableFuture<ByteBuffer> call(
      PeerAddress peer, String application, int service, ByteBuffer request) {
    return server.calls().call(peer, application, service, request);
  }

  @Override
  public ReadChannel connect(PeerAddress peer, String application) throws TransportException {
    if (closed) {
      throw new PeerUnreachableException("the tcp transport is closed", peer, null, null);
    }
    byte[] secret = secrets.secretOf(application);
    if (secret == null) {
      throw failed(
          new AuthenticationException(
              "no secret known for application " + application, peer, null, null));
    }
    SocketChannel ch;
    try {
      ch = SocketChannel.open();
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
      ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    } catch (IOException e) {
      throw failed(new PeerUnreachableException("could not open a socket", peer, null, e));
    }
    ScheduledFuture<?> deadline =
        timer.schedule(() -> closeQuietly(ch), connectTimeoutMillis, TimeUnit.MILLISECONDS);
    Handshake.Result proven;
    try {
      ch.socket().connect(peer.socketAddress(), (int) connectTimeoutMillis);
      proven = Handshake.client(ch, application, secret, Purpose.READ);
    } catch (Handshake.Refused e) {
      closeQuietly(ch);
      throw failed(refused(e, peer));
    } catch (IOException | IllegalArgumentException e) {
      closeQuietly(ch);
      String why =
          deadline.isDone()
              ? "no connection and handshake within " + connectTimeoutMillis + " ms"
              : "could not connect: " + e;
      throw failed(new PeerUnreachableException(why, peer, null, e));
    }
    if (!deadline.cancel(false)) {
      closeQuietly(ch);
      throw failed(
          new PeerUnreachableException(
              "no connection and handshake within " + connectTimeoutMillis + " ms",
              peer,
              null,
              null));
    }
    TcpReadChannel c =
        new TcpReadChannel(
            this,
            peer,
            application,
            ch,
            proven.clientToServer(),
            maxRequests,
            maxBytes,
            readTimeoutNanos,
            idleNanos);
    channels.add(c);
    if (closed) {
      c.close();
    }
    return c;
  }

  /** A refused handshake as the typed failure: busy or another transport is unreachable. */
  private static TransportException refused(Handshake.Refused e, PeerAddress peer) {
    return switch (e.reason()) {
      case BUSY ->
          new PeerUnreachableException(
              "peer is at a connection bound and refused the connection; retry later",
              peer,
              null,
              e);
      case UNKNOWN_PURPOSE ->
          new PeerUnreachableException(
              "peer does not serve tcp READs (it runs another transport)", peer, null, e);
      case HUNG_UP ->
          new PeerUnreachableException(
              "peer closed the connection during the handshake (a bound, or not rdma-shuffle)",
              peer,
              null,
              e);
      default -> new AuthenticationException(e.getMessage(), peer, null, e);
    };
  }

  private TransportException failed(TransportException e) {
    metrics.failure(e.kind());
    return e;
  }

  /** Calls a READ's listener; a listener that throws is logged and counted, never propagated. */
  void deliver(ReadOp op, TransportException failure) {
    ListenerCalls.deliver(op, failure, metrics);
  }

  void channelEnded(TcpReadChannel c) {
    channels.remove(c);
  }

  private void checkTimeouts() {
    long now = System.nanoTime();
    for (TcpReadChannel c : channels) {
      c.checkTimeouts(now);
    }
  }

  /** The connection server this transport serves on. */
  public ConnectionServer server() {
    return server;
  }

  /** Live connections served by this process (tests). */
  public int servedConnections() {
    return readService.sessions();
  }

  /** Live connections this process opened (tests). */
  public int openConnections() {
    return channels.size();
  }

  /** Closes the application's connections to this server: its serving ended. */
  @Override
  public void withdrawApplication(String application) {
    server.closeApplication(application);
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
    timer.shutdownNow();
    registrar.close();
  }

  static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing after a failure: the first failure is what gets reported
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
