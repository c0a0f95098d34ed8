package io.rdmashuffle.transport.server;

import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.NonceHistory;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.Purpose;
import io.rdmashuffle.transport.Refusal;
import io.rdmashuffle.transport.ServerHandshake;
import io.rdmashuffle.transport.TransportContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
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
 * <p>Created before the transport ({@link io.rdmashuffle.transport.TransportSelector#start}) and
 * owned by it once it started. Thread-safe.
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

  /** Runs for every accepted socket before anything else: a seam for tests that inject faults. */
  private volatile Consumer<SocketChannel> onAccept = ch -> {};

  private volatile boolean closed;

  /**
   * Binds to {@code host} (the setting, else the context's default) and {@code port} of the
   * settings.
   */
  public static ConnectionServer start(TransportContext context) throws IOException {
    return new ConnectionServer(
        ServerLimits.from(context.conf()),
        context.secrets(),
        context.metrics(),
        context.host(),
        context.conf().get(RdmaShuffleConfig.PORT),
        context.host());
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
    try {
      listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      listener.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_RECEIVE_BYTES);
      listener.bind(new InetSocketAddress(bindHost, port), Math.min(limits.maxHandshakes(), 4096));
      this.address =
          new PeerAddress(
              advertisedHost, ((InetSocketAddress) listener.getLocalAddress()).getPort());
      for (int i = 0; i < loops.length; i++) {
        loops[i] = new IoLoop(this, i, limits.tickNanos());
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
    this.acceptor = new Acceptor(this, listener);
    acceptor.start();
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

  IoLoop nextLoop() {
    return loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
  }

  /** The accept thread took {@code ch} off the listening socket: admit it or refuse it. */
  void accepted(SocketChannel ch) throws IOException {
    onAccept.accept(ch);
    InetSocketAddress remote = (InetSocketAddress) ch.getRemoteAddress();
    Refusal bound = admission.tryHandshake(remote.getAddress());
    if (bound != null) {
      log.refused(bound, "a connection from " + remote, "a handshake bound is reached", null);
      abort(ch);
      return;
    }
    try {
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
      nextLoop().register(new ServerConnection(this, ch, remote));
    } catch (IOException | RuntimeException | Error e) {
      admission.handshakeEnded(remote.getAddress());
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
