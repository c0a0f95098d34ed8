package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.FailureKind;
import io.rdmashuffle.transport.Handshake;
import io.rdmashuffle.transport.Refusal;
import io.rdmashuffle.transport.ServerHandshake;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One accepted connection: first its handshake (a {@link ServerHandshake}, run as bytes arrive,
 * holding a handshake place of {@link Admission} and nothing else), then, once the peer proved its
 * secret and a connection place is free, the {@link Session} of the purpose it named. Enforces the
 * handshake deadline, the idle timeout and the send-progress timeout. Owned by its {@link IoLoop};
 * every method on that loop's thread.
 */
final class ServerConnection extends LoopConnection implements ServedConnection {
  private final ConnectionServer server;
  private final InetSocketAddress remote;
  private final long acceptedAt = System.nanoTime();
  private ServerHandshake handshake;
  private boolean holdsHandshakePlace = true;
  private boolean holdsConnectionPlace;
  private String application;
  private Session session;
  private long lastProgress = acceptedAt;
  private boolean wasPending;
  private long pendingSince;

  ServerConnection(ConnectionServer server, SocketChannel ch, InetSocketAddress remote) {
    super(ch);
    this.server = server;
    this.remote = remote;
  }

  @Override
  int initialInterest() {
    return SelectionKey.OP_READ;
  }

  @Override
  void ready(int ops) throws IOException {
    if (session == null) {
      handshake();
      return;
    }
    if ((ops & SelectionKey.OP_READ) != 0) {
      session.readable();
    }
    if (!closed && (ops & SelectionKey.OP_WRITE) != 0) {
      session.writable();
    }
  }

  private void handshake() throws IOException {
    if (handshake == null) {
      handshake = server.newHandshake();
    }
    ServerHandshake h = handshake;
    LoopBuffers b = loop.buffers();
    while (!closed) {
      ByteBuffer out = h.out();
      while (out.hasRemaining() && b.write(ch, out) > 0) {
        lastActivity = System.nanoTime();
      }
      interest(SelectionKey.OP_WRITE, out.hasRemaining());
      if (out.hasRemaining() && h.refusal() == null) {
        return; // the rest when the socket takes it
      }
      if (h.refusal() != null) {
        refused(h.refusal());
        return;
      }
      if (h.done()) {
        startSession(h.result());
        return;
      }
      if (h.verified()) {
        admit(h);
        continue;
      }
      ByteBuffer in = h.in();
      int n = b.read(ch, in);
      if (n < 0) {
        h.hungUp();
      } else if (n == 0) {
        return;
      } else if (!in.hasRemaining()) {
        h.received();
      }
    }
  }

  /** The peer proved its secret: takes a connection place, or tells it the server is busy. */
  private void admit(ServerHandshake h) {
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

  private void refused(Handshake.Refused r) {
    if (r.reason() != Handshake.Refused.Reason.BUSY) {
      server.metrics().failure(FailureKind.AUTHENTICATION);
      close(Refusal.HANDSHAKE_FAILED, r.reason() + ": " + r.getMessage());
    } else {
      close(null, null); // counted as the bound that refused it
    }
  }

  private void startSession(Handshake.Result result) {
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
  void check(long now) {
    ServerLimits limits = server.limits();
    if (session == null) {
      if (now - acceptedAt > limits.handshakeTimeoutNanos()) {
        server.metrics().failure(FailureKind.AUTHENTICATION);
        close(
            Refusal.HANDSHAKE_TIMEOUT,
            "no handshake within "
                + TimeUnit.NANOSECONDS.toMillis(limits.handshakeTimeoutNanos())
                + " ms");
      }
      return;
    }
    boolean pending = session.hasPendingOutput();
    if (pending && !wasPending) {
      pendingSince = now;
    }
    wasPending = pending;
    if (pending && now - Math.max(lastProgress, pendingSince) > limits.sendTimeoutNanos()) {
      close(
          Refusal.SEND_TIMEOUT,
          "the peer took no bytes for "
              + TimeUnit.NANOSECONDS.toMillis(limits.sendTimeoutNanos())
              + " ms");
      return;
    }
    if (!pending && !session.busy() && now - lastActivity > limits.idleTimeoutNanos()) {
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

  // ------------------------------------------------------------ ServedConnection

  @Override
  public SocketChannel channel() {
    return ch;
  }

  @Override
  public InetSocketAddress remote() {
    return remote;
  }

  @Override
  public String application() {
    return application;
  }

  @Override
  public LoopBuffers buffers() {
    return loop.buffers();
  }

  @Override
  public Executor loop() {
    return loop;
  }

  @Override
  public void wantWrite(boolean on) {
    interest(SelectionKey.OP_WRITE, on);
  }

  @Override
  public void wantRead(boolean on) {
    interest(SelectionKey.OP_READ, on);
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
      server.admission().handshakeEnded(remote.getAddress());
    }
  }

  @Override
  public String toString() {
    return "connection from " + remote + (application == null ? "" : " of " + application);
  }
}
