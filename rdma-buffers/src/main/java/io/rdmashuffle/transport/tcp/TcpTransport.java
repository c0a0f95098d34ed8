package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.Handshake;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.TransportStartException;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one-sided READ transport in software: what a NIC does for verbs, done by a responder
 * thread per connection over TCP. Same semantics as verbs: READs name {@code (address, rkey,
 * length)}, the serving side checks rkey, bounds and application, and no shuffle code runs
 * there. One instance per process.
 */
public final class TcpTransport implements Transport {
  private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
  /**
   * Socket buffer for the direction that carries requests (reader's send, responder's receive):
   * large enough for every request frame a connection may have in flight, so writing requests
   * never waits for the responder, whatever it is doing. Data directions keep kernel autotuning.
   */
  static final int SOCKET_BUFFER_BYTES = 256 * 1024;

  private final TransportMetrics metrics;
  private final ApplicationSecrets secrets;
  private final TcpRegistrar registrar;
  private final ScheduledThreadPoolExecutor timer;
  private final TcpResponder responder;
  private final Set<TcpReadChannel> channels = ConcurrentHashMap.newKeySet();
  private final long connectTimeoutMillis;
  private final long readTimeoutNanos;
  private final int maxRequests;
  private final long maxBytes;
  private volatile boolean closed;

  private TcpTransport(TransportContext context) throws IOException {
    RdmaConf conf = context.conf();
    this.metrics = context.metrics();
    this.secrets = context.secrets();
    this.registrar = new TcpRegistrar(metrics.memory());
    this.connectTimeoutMillis = conf.get(RdmaShuffleConfig.CONNECT_TIMEOUT).toMillis();
    this.readTimeoutNanos = conf.get(RdmaShuffleConfig.READ_TIMEOUT).toNanos();
    this.maxRequests = conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_READS);
    this.maxBytes = conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_BYTES);
    this.timer = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "rdma-tcp-timer"));
    timer.setRemoveOnCancelPolicy(true);
    String host = conf.get(RdmaShuffleConfig.HOST);
    if (host.isEmpty()) {
      host = context.defaultHost();
    }
    try {
      this.responder =
          new TcpResponder(
              this,
              host,
              conf.get(RdmaShuffleConfig.PORT),
              host,
              secrets,
              timer,
              connectTimeoutMillis);
    } catch (IOException | RuntimeException e) {
      timer.shutdownNow();
      throw e;
    }
    long tick = Math.max(5, Math.min(250, conf.get(RdmaShuffleConfig.READ_TIMEOUT).toMillis() / 4));
    timer.scheduleWithFixedDelay(this::checkTimeouts, tick, tick, TimeUnit.MILLISECONDS);
  }

  /** Starts the transport: binds the responder and its timer. */
  public static TcpTransport start(TransportContext context) throws TransportStartException {
    try {
      return new TcpTransport(context);
    } catch (IOException | RuntimeException e) {
      throw new TransportStartException(
          "tcp transport could not listen: " + e.getMessage(), e);
    }
  }

  @Override
  public TransportKind kind() {
    return TransportKind.TCP;
  }

  @Override
  public PeerAddress localAddress() {
    return responder.address();
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
    } catch (IOException e) {
      throw failed(new PeerUnreachableException("could not open a socket", peer, null, e));
    }
    ScheduledFuture<?> deadline =
        timer.schedule(
            () -> TcpResponder.closeQuietly(ch), connectTimeoutMillis, TimeUnit.MILLISECONDS);
    try {
      ch.socket().connect(peer.socketAddress(), (int) connectTimeoutMillis);
      Handshake.client(ch, application, secret);
    } catch (Handshake.Refused e) {
      TcpResponder.closeQuietly(ch);
      throw failed(new AuthenticationException(e.getMessage(), peer, null, e));
    } catch (IOException | IllegalArgumentException e) {
      TcpResponder.closeQuietly(ch);
      String why =
          deadline.isDone()
              ? "no connection and handshake within " + connectTimeoutMillis + " ms"
              : "could not connect: " + e;
      throw failed(new PeerUnreachableException(why, peer, null, e));
    }
    if (!deadline.cancel(false)) {
      TcpResponder.closeQuietly(ch);
      throw failed(
          new PeerUnreachableException(
              "no connection and handshake within " + connectTimeoutMillis + " ms", peer, null,
              null));
    }
    TcpReadChannel c =
        new TcpReadChannel(this, peer, application, ch, maxRequests, maxBytes, readTimeoutNanos);
    channels.add(c);
    if (closed) {
      c.close();
    }
    return c;
  }

  private TransportException failed(TransportException e) {
    metrics.failure(e.kind());
    return e;
  }

  /** Calls a READ's listener; a listener that throws is logged and counted, never propagated. */
  void deliver(ReadOp op, TransportException failure) {
    ReadListener l = op.listener();
    try {
      if (failure == null) {
        l.onReadComplete(op);
      } else {
        l.onReadFailed(op, failure);
      }
    } catch (RuntimeException | Error e) {
      metrics.listenerError();
      LOG.error("a READ listener threw; the READ's owner will not learn its outcome", e);
    }
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

  /** Live connections served by this process (tests). */
  public int servedConnections() {
    return responder.sessionCount();
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
    responder.close();
    for (TcpReadChannel c : channels) {
      c.close();
    }
    timer.shutdownNow();
    registrar.close();
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
