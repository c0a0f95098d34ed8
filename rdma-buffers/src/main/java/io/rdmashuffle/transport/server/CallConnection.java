package io.rdmashuffle.transport.server;

import static io.rdmashuffle.transport.server.CallFrameLayout.*;

import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.ClientHandshake;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.FrameMac;
import io.rdmashuffle.transport.Handshake;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.Purpose;
import io.rdmashuffle.transport.ReadTimeoutException;
import io.rdmashuffle.transport.TransportException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * One CALL connection this process opened to a peer: connects and runs the client handshake without
 * blocking, then sends the calls handed to it (each frame tagged) and completes each call's future
 * from its answer (whose tag it checks). A connection that can't be set up by {@code
 * connect.timeout} fails its calls as unreachable; a call without answer by {@code read.timeout}
 * fails as timed out and closes the connection (the peer is stalled), failing the others as lost.
 * Idle for half of {@code server.idleTimeout}, it closes itself, before the server would: a call
 * never meets a connection the server is closing. The calls in flight are kept by {@link
 * InFlightCalls}, answers reassembled by {@link AnswerReader}. Driven by one {@link IoLoop}; {@link
 * #submit} from any thread.
 */
final class CallConnection extends LoopConnection {
  private enum State {
    CONNECTING,
    HANDSHAKE,
    READY
  }

  private final CallClient client;
  private final CallClient.Key key;
  private final byte[] secret;
  private final IoLoop home;
  private final ServerLimits limits;
  private final long connectDeadline;

  /** Calls handed over and not yet sent; guarded by this with {@link #shut}. */
  private final Queue<PendingCall> submitted = new ConcurrentLinkedQueue<>();

  private boolean shut;

  /** Why it closed; guarded by this. */
  private TransportException closedBy;

  private State state = State.CONNECTING;
  private ClientHandshake handshake;
  private FrameMac requests;
  private FrameMac answers;
  private final InFlightCalls inFlight = new InFlightCalls();
  private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
  private final AnswerReader answerReader;

  CallConnection(CallClient client, CallClient.Key key, byte[] secret) {
    super(open());
    this.client = client;
    this.key = key;
    this.secret = secret;
    this.limits = client.server().limits();
    this.connectDeadline = System.nanoTime() + limits.handshakeTimeoutNanos();
    this.answerReader = new AnswerReader(limits.maxCallAnswerBytes());
    this.home = client.server().nextLoop();
    home.register(this);
  }

  private static SocketChannel open() {
    try {
      SocketChannel ch = SocketChannel.open();
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
      return ch;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
    home.execute(this::pump);
    return true;
  }

  @Override
  int initialInterest() {
    return 0;
  }

  @Override
  void attached() throws IOException {
    if (key.local() != null) {
      ch.bind(new InetSocketAddress(key.local(), 0));
    }
    if (ch.connect(peer().socketAddress())) {
      connected();
    } else {
      interest(SelectionKey.OP_CONNECT, true);
    }
  }

  @Override
  void ready(int ops) throws IOException {
    switch (state) {
      case CONNECTING -> {
        if ((ops & SelectionKey.OP_CONNECT) != 0 && ch.finishConnect()) {
          interest(SelectionKey.OP_CONNECT, false);
          connected();
        }
      }
      case HANDSHAKE -> handshake();
      case READY -> {
        if ((ops & SelectionKey.OP_WRITE) != 0) {
          flush();
        }
        if (!closed && (ops & SelectionKey.OP_READ) != 0) {
          readAnswers();
        }
      }
    }
  }

  private void connected() throws IOException {
    state = State.HANDSHAKE;
    handshake = new ClientHandshake(key.application(), secret, Purpose.CALL);
    interest(SelectionKey.OP_READ, true);
    handshake();
  }

  private void handshake() throws IOException {
    ClientHandshake h = handshake;
    LoopBuffers b = loop.buffers();
    while (!closed) {
      ByteBuffer o = h.out();
      while (o.hasRemaining() && b.write(ch, o) > 0) {
        lastActivity = System.nanoTime();
      }
      interest(SelectionKey.OP_WRITE, o.hasRemaining());
      if (h.refusal() != null) {
        refused(h.refusal());
        return;
      }
      if (o.hasRemaining()) {
        return;
      }
      if (h.done()) {
        established(h.result());
        return;
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

  private void refused(Handshake.Refused r) {
    TransportException e =
        switch (r.reason()) {
          case WRONG_SECRET, REFUSED, REPLAYED, REFLECTED ->
              new AuthenticationException(r.getMessage(), peer(), null, r);
          default ->
              new PeerUnreachableException(
                  "call connection refused: " + r.getMessage(), peer(), null, r);
        };
    close(e);
  }

  private void established(Handshake.Result result) throws IOException {
    handshake = null;
    requests = result.clientToServer();
    answers = result.serverToClient();
    state = State.READY;
    lastActivity = System.nanoTime();
    pump();
  }

  /** Loop thread: frames the submitted calls and sends what the socket takes. */
  private void pump() {
    if (state != State.READY || closed) {
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
      close(new ConnectionLostException("sending a call failed", peer(), null, e));
    }
  }

  private void flush() throws IOException {
    while (!out.isEmpty()) {
      ByteBuffer b = out.peekFirst();
      if (loop.buffers().write(ch, b) > 0) {
        lastActivity = System.nanoTime();
      }
      if (b.hasRemaining()) {
        interest(SelectionKey.OP_WRITE, true);
        return;
      }
      out.pollFirst();
    }
    interest(SelectionKey.OP_WRITE, false);
  }

  private void readAnswers() throws IOException {
    while (!closed) {
      ByteBuffer into = answerReader.into();
      int n = loop.buffers().read(ch, into);
      if (n < 0) {
        close(new ConnectionLostException("peer closed the call connection", peer(), null, null));
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
        close(
            new ConnectionLostException(
                "peer sent a malformed answer: " + e.getMessage(), peer(), null, null));
        return;
      }
      String wrong = a == null ? null : inFlight.answered(a, answers, peer(), this::fail);
      if (wrong != null) {
        close(new ConnectionLostException(wrong, peer(), null, null));
        return;
      }
    }
  }

  @Override
  void check(long now) {
    if (state != State.READY) {
      if (now - connectDeadline > 0) {
        close(
            new PeerUnreachableException(
                "no call connection and handshake within "
                    + TimeUnit.NANOSECONDS.toMillis(limits.handshakeTimeoutNanos())
                    + " ms",
                peer(),
                null,
                null));
      }
      return;
    }
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
      close(
          new ConnectionLostException(
              "call connection closed after a call timed out", peer(), null, e));
      fail(late, e);
      return;
    }
    // at half the idle timeout, so that a call never races the server closing the connection
    if (inFlight.isEmpty()
        && submitted.isEmpty()
        && now - lastActivity > limits.idleTimeoutNanos() / 2) {
      close(new ConnectionLostException("call connection idle", peer(), null, null));
    }
  }

  @Override
  void failed(Throwable t) {
    close(
        t instanceof IOException
            ? new PeerUnreachableException(
                state == State.READY ? "call connection broke: " + t : "could not connect: " + t,
                peer(),
                null,
                t)
            : new ConnectionLostException("call connection failed: " + t, peer(), null, t));
    if (!(t instanceof IOException)) {
      client
          .server()
          .log()
          .refused(io.rdmashuffle.transport.Refusal.CONNECTION_FAILED, this, "unexpected error", t);
    }
  }

  @Override
  void shutdown() {
    close(new ConnectionLostException("the transport is closed", peer(), null, null));
  }

  /** Why this connection closed, or null while it is open. Any thread. */
  synchronized TransportException closedBy() {
    return closedBy;
  }

  /** Fails every call of this connection with {@code cause} and closes it. */
  private void close(TransportException cause) {
    synchronized (this) {
      shut = true;
      if (closedBy == null) {
        closedBy = cause;
      }
    }
    boolean first = !closed;
    closeChannel();
    if (first) {
      client.closed(this);
    }
    List<PendingCall> all = inFlight.removeAll();
    PendingCall c;
    while ((c = submitted.poll()) != null) {
      all.add(c);
    }
    out.clear();
    for (PendingCall p : all) {
      fail(p, cause);
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
