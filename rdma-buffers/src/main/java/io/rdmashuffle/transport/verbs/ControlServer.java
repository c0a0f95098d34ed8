package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.Handshake;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.TransportException;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verbs transport's TCP control port: a reader proves its application's secret here (the
 * same {@link Handshake} as the tcp transport) and announces the RDMA-CM source it will connect
 * from ({@link ConnectLayout}); only announced connects get a queue pair. Also the reader's side
 * of that exchange, {@link #announce}. No RDMA here: testable on any host.
 */
public final class ControlServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);

  private final ServerSocketChannel server;
  private final ApplicationSecrets secrets;
  private final ConnectExpectations expectations;
  private final ScheduledExecutorService timer;
  private final long timeoutMillis;
  private final Runnable onRefused;
  private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closed;

  /**
   * @param onRefused counts a peer that failed to authenticate
   */
  public ControlServer(
      String host,
      int port,
      ApplicationSecrets secrets,
      ConnectExpectations expectations,
      ScheduledExecutorService timer,
      long timeoutMillis,
      Runnable onRefused)
      throws IOException {
    this.secrets = secrets;
    this.expectations = expectations;
    this.timer = timer;
    this.timeoutMillis = timeoutMillis;
    this.onRefused = onRefused;
    this.server = ServerSocketChannel.open();
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(new InetSocketAddress(host, port), 128);
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    this.acceptor = new Thread(this::acceptLoop, "rdma-verbs-control-" + port());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    try {
      return ((InetSocketAddress) server.getLocalAddress()).getPort();
    } catch (IOException e) {
      throw new IllegalStateException("control port closed", e);
    }
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
          LOG.warn("accepting a control connection failed", e);
        }
        continue;
      }
      open.add(ch);
      Thread t = new Thread(() -> serve(ch), "rdma-verbs-control-peer");
      t.setDaemon(true);
      t.start();
    }
  }

  private void serve(SocketChannel ch) {
    // set before the close: the blocked read fails as soon as the channel closes, possibly
    // before the timer's future counts as done
    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> deadline = timer.schedule(() -> {
      timedOut.set(true);
      closeQuietly(ch);
    }, timeoutMillis, TimeUnit.MILLISECONDS);
    try {
      String app = Handshake.server(ch, secrets).application();
      ByteBuffer first = readFully(ch, 1);
      ByteBuffer expect = ByteBuffer.allocate(ConnectLayout.expectLength(first.get(0)));
      expect.put(first.get(0));
      while (expect.hasRemaining()) {
        if (ch.read(expect) < 0) {
          throw new EOFException("control connection closed before its announcement");
        }
      }
      InetSocketAddress source = ConnectLayout.readExpect(expect.flip());
      expectations.expect(source, app);
      ByteBuffer ok = ByteBuffer.allocate(ConnectLayout.ACCEPTED_BYTES);
      ok.putInt(0, ConnectLayout.STATUS_ACCEPTED);
      while (ok.hasRemaining()) {
        ch.write(ok);
      }
      if (!deadline.cancel(false)) {
        return;
      }
      // the reader closes when its connect is done; nothing else comes on this connection
      ch.read(ByteBuffer.allocate(1));
    } catch (Handshake.Refused e) {
      onRefused.run();
      LOG.warn("refused a verbs connection: {}", e.getMessage());
    } catch (IOException | IllegalArgumentException e) {
      if (timedOut.get() && !closed) {
        onRefused.run();
        LOG.warn("refused a verbs connection: no handshake within {} ms", timeoutMillis);
      } else {
        LOG.debug("control connection ended", e);
      }
    } finally {
      deadline.cancel(false);
      open.remove(ch);
      closeQuietly(ch);
    }
  }

  /**
   * The reader's side: proves {@code secret} of {@code application} to the responder at {@code
   * peer} and announces {@code source}. The returned connection is open; close it once the
   * RDMA-CM connect finished.
   */
  public static SocketChannel announce(
      PeerAddress peer,
      String application,
      byte[] secret,
      InetSocketAddress source,
      ScheduledExecutorService timer,
      long timeoutMillis)
      throws TransportException {
    SocketChannel ch;
    try {
      ch = SocketChannel.open();
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    } catch (IOException e) {
      throw new PeerUnreachableException("could not open a control socket", peer, null, e);
    }
    ScheduledFuture<?> deadline =
        timer.schedule(() -> closeQuietly(ch), timeoutMillis, TimeUnit.MILLISECONDS);
    try {
      ch.socket().connect(peer.socketAddress(), (int) timeoutMillis);
      Handshake.client(ch, application, secret);
      ByteBuffer expect = ConnectLayout.expect(source);
      while (expect.hasRemaining()) {
        ch.write(expect);
      }
      ByteBuffer ok = readFully(ch, ConnectLayout.ACCEPTED_BYTES);
      if (ok.getInt(0) != ConnectLayout.STATUS_ACCEPTED) {
        throw new Handshake.Refused("responder refused the connect announcement");
      }
    } catch (Handshake.Refused e) {
      closeQuietly(ch);
      throw new AuthenticationException(e.getMessage(), peer, null, e);
    } catch (IOException | IllegalArgumentException e) {
      closeQuietly(ch);
      throw new PeerUnreachableException(
          deadline.isDone()
              ? "no control handshake within " + timeoutMillis + " ms"
              : "control connection failed: " + e,
          peer, null, e);
    } finally {
      deadline.cancel(false);
    }
    return ch;
  }

  private static ByteBuffer readFully(SocketChannel ch, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        throw new EOFException("control connection closed");
      }
    }
    return b.flip();
  }

  static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // the first failure is what gets reported
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (SocketChannel ch : open) {
      closeQuietly(ch);
    }
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
