package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.FailureKind;
import io.rdmashuffle.transport.PeerAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The software NIC of the tcp transport: accepts connections, authenticates them and serves
 * READs of registered regions, one thread per connection ({@link TcpServingSession}). No shuffle
 * code runs here. Owned by {@link TcpTransport}.
 */
final class TcpResponder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpResponder.class);

  private final ServerSocketChannel server;
  private final PeerAddress address;
  private final TcpTransport transport;
  private final ApplicationSecrets secrets;
  private final ScheduledExecutorService timer;
  private final long handshakeTimeoutMillis;
  private final Set<TcpServingSession> sessions = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closed;

  TcpResponder(
      TcpTransport transport,
      String bindHost,
      int port,
      String advertisedHost,
      ApplicationSecrets secrets,
      ScheduledExecutorService timer,
      long handshakeTimeoutMillis)
      throws IOException {
    this.transport = transport;
    this.secrets = secrets;
    this.timer = timer;
    this.handshakeTimeoutMillis = handshakeTimeoutMillis;
    this.server = ServerSocketChannel.open();
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.setOption(StandardSocketOptions.SO_RCVBUF, TcpTransport.SOCKET_BUFFER_BYTES);
      server.bind(new InetSocketAddress(bindHost, port), 256);
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    int bound = ((InetSocketAddress) server.getLocalAddress()).getPort();
    this.address = new PeerAddress(advertisedHost, bound);
    this.acceptor = new Thread(this::acceptLoop, "rdma-tcp-accept-" + bound);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  PeerAddress address() {
    return address;
  }

  private void acceptLoop() {
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("accepting a READ connection on {} failed", address, e);
          sleepQuietly();
        }
        continue;
      }
      try {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        TcpServingSession s = new TcpServingSession(this, ch);
        sessions.add(s);
        if (closed) {
          s.close();
          return;
        }
        Thread t = new Thread(s, "rdma-tcp-serve-" + ch.getRemoteAddress());
        t.setDaemon(true);
        t.start();
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not start serving a READ connection on {}", address, e);
        closeQuietly(ch);
      }
    }
  }

  TcpTransport transport() {
    return transport;
  }

  ApplicationSecrets secrets() {
    return secrets;
  }

  /** Closes {@code ch} unless the handshake marks itself done before the deadline. */
  java.util.concurrent.ScheduledFuture<?> handshakeDeadline(SocketChannel ch) {
    return timer.schedule(() -> closeQuietly(ch), handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
  }

  void sessionEnded(TcpServingSession s, FailureKind failure) {
    sessions.remove(s);
    if (failure != null) {
      transport.metrics().failure(failure);
    }
  }

  int sessionCount() {
    return sessions.size();
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (TcpServingSession s : sessions) {
      s.close();
    }
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing after a failure: the first failure is what gets reported
    }
  }

  private static void sleepQuietly() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
