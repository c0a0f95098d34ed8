package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.FailureKind;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.verbs.ConnectExpectations;
import io.rdmashuffle.transport.verbs.ControlServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One-sided READs with RDMA verbs through DiSNI: RC queue pairs set up with RDMA-CM, READs
 * posted and completed by one engine thread ({@link VerbsEngine}), memory registered with the
 * NIC ({@link VerbsRegistrar}). The serving side is the NIC itself: a queue pair is created for
 * a peer only after it proved its application's secret on the TCP control port ({@link
 * ControlServer}) and announced the RDMA-CM source it connects from, and it lives in that
 * application's protection domain, so it can READ nothing else.
 *
 * <p>The responder's address: the TCP control port and the RDMA-CM listening port have the same
 * number on the same host (the two port spaces are distinct).
 *
 * <p>Every connection step has a deadline (DiSNI's own endpoint classes are known to wait
 * forever on address and route errors; they are not used).
 */
public final class VerbsTransport implements Transport, CmEventLoop.Events {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsTransport.class);
  private static final int MIN_DEPTH = 16;
  private static final int CQ_ENTRIES = 8192;
  private static final byte RETRIES = 7;

  private final TransportMetrics metrics;
  private final ApplicationSecrets secrets;
  private final String host;
  private final long connectTimeoutMillis;
  private final int wantedDepth;
  private final long maxBytes;
  private final ScheduledThreadPoolExecutor timer;
  private final ConnectExpectations expectations;

  private RdmaEventChannel cmChannel;
  private CmEventLoop cm;
  private RdmaCmId listenId;
  private ControlServer control;
  private IbvContext context;
  private VerbsRegistrar registrar;
  private IbvCompChannel compChannel;
  private IbvCQ cq;
  private VerbsEngine engine;
  private PeerAddress address;

  private final Map<RdmaCmId, VerbsChannel> clients = new ConcurrentHashMap<>();
  private final Map<RdmaCmId, IbvQP> served = new ConcurrentHashMap<>();
  private final Set<VerbsChannel> channels = ConcurrentHashMap.newKeySet();
  private volatile String unusable;
  private volatile boolean closed;

  private VerbsTransport(TransportContext ctx) {
    RdmaConf conf = ctx.conf();
    this.metrics = ctx.metrics();
    this.secrets = ctx.secrets();
    String h = conf.get(RdmaShuffleConfig.HOST);
    this.host = h.isEmpty() ? ctx.defaultHost() : h;
    this.connectTimeoutMillis = conf.get(RdmaShuffleConfig.CONNECT_TIMEOUT).toMillis();
    this.wantedDepth = conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_READS);
    this.maxBytes = conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_BYTES);
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "rdma-verbs-timer");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    this.expectations = new ConnectExpectations(TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis));
  }

  /** Starts the transport; on failure closes whatever it had built. */
  static VerbsTransport start(TransportContext ctx) throws TransportStartException {
    VerbsTransport t = new VerbsTransport(ctx);
    try {
      t.open(ctx.conf(), ctx.conf().get(RdmaShuffleConfig.PORT));
      return t;
    } catch (IOException | RuntimeException e) {
      t.close();
      throw new TransportStartException("verbs transport could not start on " + t.host + ": "
          + e.getMessage(), e);
    }
  }

  private void open(RdmaConf conf, int port) throws IOException {
    InetAddress ip = InetAddress.getByName(host);
    cmChannel = RdmaEventChannel.createEventChannel();
    cm = new CmEventLoop(cmChannel, this);
    cm.start();
    listenId = cm.createId(connectTimeoutMillis);
    for (int attempt = 0; ; attempt++) {
      control = new ControlServer(ip.getHostAddress(), port, secrets, expectations, timer,
          connectTimeoutMillis, () -> metrics.failure(FailureKind.AUTHENTICATION));
      int p = control.port();
      try {
        cm.call(() -> {
          listenId.bindAddr(new InetSocketAddress(ip, p));
          return null;
        }, connectTimeoutMillis);
        break;
      } catch (IOException e) {
        control.close();
        control = null;
        if (port != 0 || attempt == 4) {
          throw new IOException("could not bind RDMA-CM to " + ip.getHostAddress() + ":" + p
              + " (" + e.getMessage() + ")", e);
        }
      }
    }
    context = cm.call(() -> listenId.getVerbs(), connectTimeoutMillis);
    if (context == null) {
      throw new IOException(host + " is not the address of an RDMA device");
    }
    cm.call(() -> {
      listenId.listen(128);
      return null;
    }, connectTimeoutMillis);
    registrar = new VerbsRegistrar(context, metrics.memory());
    compChannel = context.createCompChannel();
    int entries = CQ_ENTRIES;
    while (true) {
      try {
        cq = context.createCQ(compChannel, entries, 0);
        break;
      } catch (IOException e) {
        if (entries <= 256) {
          throw e;
        }
        entries /= 2;
      }
    }
    engine = new VerbsEngine(cq, compChannel, entries, metrics,
        conf.get(RdmaShuffleConfig.READ_TIMEOUT).toNanos(), this::destroyQp, this::channelBroken);
    engine.start();
    address = new PeerAddress(host, control.port());
    LOG.info("verbs transport listening on {} (completion queue of {} entries)", address, entries);
  }

  @Override
  public TransportKind kind() {
    return TransportKind.VERBS;
  }

  @Override
  public PeerAddress localAddress() {
    return address;
  }

  @Override
  public MemoryRegistrar registrar() {
    return registrar;
  }

  @Override
  public TransportMetrics metrics() {
    return metrics;
  }

  // ------------------------------------------------------------ reading side

  @Override
  public ReadChannel connect(PeerAddress peer, String application) throws TransportException {
    if (closed || unusable != null) {
      throw failed(new PeerUnreachableException(
          closed ? "the verbs transport is closed" : unusable, peer, null, null));
    }
    byte[] secret = secrets.secretOf(application);
    if (secret == null) {
      throw failed(new AuthenticationException(
          "no secret known for application " + application, peer, null, null));
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis);
    RdmaCmId id = null;
    IbvQP qp = null;
    SocketChannel announce = null;
    try {
      id = cm.createId(connectTimeoutMillis);
      RdmaCmId cid = id;
      InetSocketAddress dst = new InetSocketAddress(InetAddress.getByName(peer.host()), peer.port());
      cm.call(() -> {
        cid.resolveAddr(new InetSocketAddress(InetAddress.getByName(host), 0), dst,
            (int) remaining(deadline));
        return null;
      }, remaining(deadline));
      expect(id, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED, peer, deadline, "address");
      LOG.debug("{}: address resolved after {} ms", peer, elapsedMillis(deadline));
      InetSocketAddress source = (InetSocketAddress) cm.call(cid::getSource, remaining(deadline));
      announce = ControlServer.announce(peer, application, secret, source, timer,
          remaining(deadline));
      cm.call(() -> {
        cid.resolveRoute((int) remaining(deadline));
        return null;
      }, remaining(deadline));
      LOG.debug("{}: announced after {} ms", peer, elapsedMillis(deadline));
      expect(id, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED, peer, deadline, "route");
      Qp made = createQp(id, registrar.ownPd(), Math.min(wantedDepth, engine.capacity()));
      qp = made.qp();
      int depth = made.depth();
      RdmaConnParam param = new RdmaConnParam();
      param.setRetry_count(RETRIES);
      param.setRnr_retry_count(RETRIES);
      VerbsChannel ch = new VerbsChannel(peer, application, id, qp, depth, maxBytes, engine);
      clients.put(id, ch);
      cm.call(() -> {
        cid.connect(param);
        return null;
      }, remaining(deadline));
      expect(id, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED, peer, deadline, "connection");
      channels.add(ch);
      if (closed) {
        ch.close();
      }
      return ch;
    } catch (TransportException e) {
      cleanup(id, qp);
      throw failed(e);
    } catch (IOException | RuntimeException e) {
      cleanup(id, qp);
      throw failed(new PeerUnreachableException("connection setup failed: " + e.getMessage(),
          peer, null, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cleanup(id, qp);
      throw failed(new PeerUnreachableException("interrupted while connecting", peer, null, e));
    } finally {
      if (announce != null) {
        try {
          announce.close();
        } catch (IOException e) {
          // the announcement has served its purpose
        }
      }
    }
  }

  /** A queue pair and the send queue depth the device accepted for it. */
  private record Qp(IbvQP qp, int depth) {}

  private Qp createQp(RdmaCmId id, IbvPd pd, int depth) throws IOException {
    int d = Math.max(MIN_DEPTH, depth);
    while (true) {
      IbvQPInitAttr attr = new IbvQPInitAttr();
      attr.cap().setMax_send_wr(d);
      attr.cap().setMax_recv_wr(1);
      attr.cap().setMax_send_sge(1);
      attr.cap().setMax_recv_sge(1);
      attr.setQp_type(IbvQP.IBV_QPT_RC);
      attr.setSend_cq(cq);
      attr.setRecv_cq(cq);
      try {
        return new Qp(cm.call(() -> id.createQP(pd, attr), connectTimeoutMillis), d);
      } catch (IOException e) {
        if (d <= MIN_DEPTH) {
          throw e;
        }
        d /= 2; // more than the device allows: ask for less
      }
    }
  }

  private void expect(RdmaCmId id, RdmaCmEvent.EventType want, PeerAddress peer, long deadline,
      String step) throws TransportException, InterruptedException {
    int got = cm.awaitEvent(id, deadline);
    if (got == want.ordinal()) {
      return;
    }
    RdmaCmEvent.EventType[] all = RdmaCmEvent.EventType.values();
    String what = got < 0 ? "no " + step + " within " + connectTimeoutMillis + " ms"
        : step + " failed: " + (got < all.length ? all[got].name() : "event " + got);
    throw new PeerUnreachableException(what, peer, null, null);
  }

  private long elapsedMillis(long deadline) {
    return connectTimeoutMillis - TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
  }

  private static long remaining(long deadline) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  private void cleanup(RdmaCmId id, IbvQP qp) {
    if (id == null) {
      return;
    }
    VerbsChannel ch = clients.remove(id);
    if (ch != null) {
      channels.remove(ch);
      destroyQp(ch); // the engine may be breaking it at the same time (a disconnect event)
    } else if (qp != null) {
      try {
        cm.call(() -> {
          id.destroyQP();
          return null;
        }, connectTimeoutMillis);
      } catch (IOException e) {
        LOG.debug("destroying a queue pair after a failed connect failed", e);
      }
    }
    cm.destroyLater(id);
  }

  private TransportException failed(TransportException e) {
    metrics.failure(e.kind());
    return e;
  }

  /**
   * Destroys a reading channel's queue pair, once, on the RDMA-CM thread. librdmacm touches an
   * id's queue pair while it processes the id's events (it moves it to RTR/RTS on a connect
   * response), and two threads destroying the same queue pair unmap its queues twice: either
   * corrupts the process. The engine calls this before it fails the channel's READs (after it the
   * NIC writes nothing more into their targets).
   */
  private void destroyQp(VerbsChannel ch) {
    if (ch.qpDestroyed) {
      return;
    }
    try {
      cm.call(() -> {
        destroyQpNow(ch);
        return null;
      }, connectTimeoutMillis);
    } catch (IOException e) {
      // the loop has stopped (transport closing, device gone): its last commands or the device
      // removal destroyed the queue pair, or its context is gone with the device
      LOG.debug("queue pair of {} not destroyed: {}", ch.peer(), e.getMessage());
    }
  }

  /** RDMA-CM thread. */
  private static void destroyQpNow(VerbsChannel ch) {
    if (ch.qpDestroyed) {
      return;
    }
    ch.qpDestroyed = true;
    try {
      ch.cmId.destroyQP();
    } catch (IOException | RuntimeException e) {
      LOG.debug("destroying a queue pair failed", e);
    }
  }

  /** The engine broke a channel (error, timeout, close): release its id. */
  private void channelBroken(VerbsChannel ch) {
    channels.remove(ch);
    clients.remove(ch.cmId);
    cm.destroyLater(ch.cmId);
  }

  // ------------------------------------------------------------ serving side (loop thread)

  @Override
  public void connectRequest(RdmaCmId id) {
    String app = null;
    try {
      InetSocketAddress from = (InetSocketAddress) id.getDestination();
      app = from == null ? null : expectations.claim(from);
      if (app == null || closed || unusable != null) {
        metrics.failure(FailureKind.AUTHENTICATION);
        LOG.warn("refused an RDMA-CM connect from {}: not announced by an authenticated peer",
            from);
        CmEventLoop.destroyNow(id);
        return;
      }
      IbvPd pd = registrar.pdOf(app);
      IbvQPInitAttr attr = new IbvQPInitAttr();
      attr.cap().setMax_send_wr(1);
      attr.cap().setMax_recv_wr(1);
      attr.cap().setMax_send_sge(1);
      attr.cap().setMax_recv_sge(1);
      attr.setQp_type(IbvQP.IBV_QPT_RC);
      attr.setSend_cq(cq);
      attr.setRecv_cq(cq);
      IbvQP qp = id.createQP(pd, attr);
      served.put(id, qp);
      RdmaConnParam param = new RdmaConnParam();
      param.setRetry_count(RETRIES);
      param.setRnr_retry_count(RETRIES);
      id.accept(param);
    } catch (IOException | RuntimeException e) {
      LOG.warn("accepting an RDMA-CM connect for {} failed", app, e);
      dropServed(id);
    }
  }

  private void dropServed(RdmaCmId id) {
    if (served.remove(id) != null) {
      try {
        id.destroyQP();
      } catch (IOException | RuntimeException e) {
        LOG.debug("destroying a served queue pair failed", e);
      }
    }
    CmEventLoop.destroyNow(id);
  }

  @Override
  public void disconnected(RdmaCmId id) {
    if (served.containsKey(id)) {
      dropServed(id);
      return;
    }
    VerbsChannel ch = clients.get(id);
    if (ch != null) {
      engine.submit(() -> engine.breakChannel(ch,
          new ConnectionLostException("peer disconnected", ch.peer(), null, null)));
    }
  }

  @Override
  public void deviceRemoved() {
    if (unusable != null) {
      return;
    }
    unusable = "the RDMA device of " + host + " was removed";
    LOG.error("{}: failing every READ and releasing its resources", unusable);
    for (RdmaCmId id : new ArrayList<>(served.keySet())) {
      dropServed(id);
    }
    // this is the RDMA-CM thread: destroy the reading queue pairs here, the engine (which would
    // ask this thread to) only fails their READs
    for (VerbsChannel ch : List.copyOf(channels)) {
      destroyQpNow(ch);
    }
    for (VerbsChannel ch : List.copyOf(clients.values())) {
      destroyQpNow(ch);
    }
    CountDownLatch broken = new CountDownLatch(1);
    engine.submit(() -> {
      for (VerbsChannel ch : List.copyOf(channels)) {
        engine.breakChannel(ch, new ConnectionLostException(unusable, ch.peer(), null, null));
      }
      broken.countDown();
    });
    try {
      broken.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    registrar.releaseAll();
    engine.stop();
    destroyCq();
    CmEventLoop.destroyNow(listenId);
    listenId = null;
    // reading channels were broken above; their ids are destroyed by queued commands: run them
    // now, then let librdmacm notice the device is gone and close its context of it
    cm.later(() -> {
      int left = NativeExtras.syncDevices();
      LOG.info("released the removed RDMA device; {} device(s) left", left);
    });
  }

  private void destroyCq() {
    try {
      if (cq != null) {
        cq.destroyCQ();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("destroying the completion queue failed", e);
    }
    cq = null;
    try {
      if (compChannel != null) {
        compChannel.destroyCompChannel();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("destroying the completion channel failed", e);
    }
    compChannel = null;
  }

  // ------------------------------------------------------------ lifecycle

  /** Live reading connections (tests). */
  public int openConnections() {
    return channels.size();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (control != null) {
      control.close();
    }
    if (cm != null && unusable == null) {
      try {
        cm.call(() -> {
          for (RdmaCmId id : new ArrayList<>(served.keySet())) {
            dropServed(id);
          }
          return null;
        }, 10_000);
      } catch (IOException e) {
        LOG.warn("closing served connections failed", e);
      }
    }
    if (engine != null && unusable == null) {
      engine.stop();
    }
    // the queued id destructions (reading channels) run now, the listening id stays: it keeps
    // librdmacm's device context open until every verbs resource on it is released
    if (cm != null) {
      cm.stop();
    }
    if (unusable == null) {
      destroyCq();
    }
    if (registrar != null) {
      registrar.releaseAll();
    }
    if (listenId != null) {
      CmEventLoop.destroyNow(listenId); // the loop thread has ended: no concurrent CM use
      listenId = null;
    }
    if (cmChannel != null) {
      try {
        cmChannel.destroyEventChannel();
      } catch (IOException | RuntimeException e) {
        LOG.debug("destroying the RDMA-CM event channel failed", e);
      }
    }
    timer.shutdownNow();
  }
}
