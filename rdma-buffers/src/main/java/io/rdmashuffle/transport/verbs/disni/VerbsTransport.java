/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.RdmaCmId;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.ServerConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.transport.AuthenticationException;
import io.rdmashuffle.transport.CallServices;
import io.rdmashuffle.transport.LocalSideException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.engine.CountedErrorHandler;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.provider.ConnectionServerTransport;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.verbs.AnnouncementService;
import io.rdmashuffle.transport.verbs.ConnectExpectations;
import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One-sided READs with RDMA verbs through DiSNI. This class holds the parts together and owns their
 * lifetime: the RDMA-CM event loop and listening id ({@link CmListener}), the RDMA-CM announcements
 * served as calls on the process's connection server ({@link AnnouncementService}: a queue pair is
 * created only for a peer that proved its application's secret there and announced the RDMA-CM
 * source it connects from), the device's resources and READ engine ({@link VerbsDevice}), the
 * reading side's connection setup ({@link VerbsConnector}) and the serving side ({@link
 * VerbsResponder}). It closes them, and releases everything when the device is removed.
 *
 * <p>The responder's address is the connection server's; the RDMA-CM listening port has the same
 * number where it is free, else any, and the announcement's answer tells readers which.
 *
 * <p>Every connection step has a deadline (DiSNI's own endpoint classes are known to wait forever
 * on address and route errors; they are not used).
 */
public final class VerbsTransport extends ConnectionServerTransport implements CmEventLoop.Events {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsTransport.class);

  private final RdmaConf conf;
  private final ApplicationSecrets secrets;
  private final String host;
  private final long connectTimeoutMillis;
  private final ConnectExpectations expectations;

  private CmListener listener;
  private CmEventLoop cm;

  /** Whether close() closes the server: from a successful start on. */
  private boolean ownsServer;

  private AnnouncementService announcements;
  private VerbsDevice device;
  private VerbsConnector connector;
  private volatile VerbsResponder responder;

  private volatile String unusable;
  private volatile boolean closed;

  private VerbsTransport(TransportContext ctx) {
    super(ctx);
    this.conf = ctx.conf();
    this.secrets = ctx.secrets();
    this.host = ctx.host();
    this.connectTimeoutMillis = conf.get(RdmaShuffleConfig.CONNECT_TIMEOUT).toMillis();
    this.expectations =
        new ConnectExpectations(
            TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis),
            conf.get(ServerConfig.VERBS_MAX_ANNOUNCEMENTS),
            conf.get(ServerConfig.VERBS_MAX_ANNOUNCEMENTS_PER_PEER));
  }

  /**
   * Starts the transport on the context's connection server; on failure closes whatever it had
   * built, and leaves the server to the caller.
   */
  static VerbsTransport start(TransportContext ctx) throws TransportStartException {
    VerbsTransport t = new VerbsTransport(ctx);
    try {
      t.open();
      t.ownsServer = true;
      return t;
    } catch (IOException | RuntimeException e) {
      t.close();
      throw new TransportStartException(
          "verbs transport could not start on " + t.host + ": " + e.getMessage(), e);
    }
  }

  private void open() throws IOException {
    InetAddress ip = InetAddress.getByName(host);
    listener = new CmListener(connectTimeoutMillis, new CountedErrorHandler(metrics::engineError));
    IbvContext context;
    try {
      context = listener.open(ip, server.address().port(), this);
    } finally {
      cm = listener.loop();
    }
    if (context == null) {
      throw new IOException(host + " is not the address of an RDMA device");
    }
    int wantedDepth = conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_READS);
    device =
        VerbsDevice.open(
            context,
            "the RDMA device of " + host,
            conf,
            metrics,
            Math.max(QueuePairs.MIN_DEPTH, wantedDepth),
            ch -> connector.channelEnded(ch));
    connector =
        new VerbsConnector(
            cm,
            device,
            server.calls(),
            host,
            connectTimeoutMillis,
            wantedDepth,
            conf.get(RdmaShuffleConfig.MAX_OUTSTANDING_BYTES));
    responder =
        new VerbsResponder(
            device.registrar,
            ServedLiveness.open(
                context,
                conf.get(RdmaShuffleConfig.VERBS_SERVED_QUEUE_PAIRS),
                conf.get(RdmaShuffleConfig.VERBS_SERVED_QUEUE_PAIRS_PROBE_INTERVAL).toNanos(),
                TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis),
                metrics),
            expectations,
            metrics,
            conf.get(RdmaShuffleConfig.VERBS_SERVED_QUEUE_PAIRS),
            conf.get(RdmaShuffleConfig.VERBS_SERVED_QUEUE_PAIRS_PER_PEER));
    listener.listen();
    announcements =
        new AnnouncementService(expectations, listener::port, app -> secrets.secretOf(app) != null);
    server.serveCalls(CallServices.VERBS_ANNOUNCE, announcements);
    LOG.info(
        "verbs transport listening on {} (completion queue of {} entries); served memory: {}",
        server.address(),
        device.cqEntries,
        device.registrationMode());
  }

  @Override
  public TransportKind kind() {
    return TransportKind.VERBS;
  }

  @Override
  public MemoryRegistrar registrar() {
    return device.registrar;
  }

  // ------------------------------------------------------------ reading side

  @Override
  public ReadChannel connect(PeerAddress peer, String application) throws TransportException {
    if (closed || unusable != null) {
      throw failed(
          new LocalSideException(
              closed ? "the verbs transport is closed" : unusable, peer, null, null));
    }
    byte[] secret = secrets.secretOf(application);
    if (secret == null) {
      throw failed(
          new AuthenticationException(
              "no secret known for application " + application, peer, null, null));
    }
    try {
      ReadChannel ch = connector.connect(peer, application);
      if (closed) {
        ch.close();
      }
      return ch;
    } catch (TransportException e) {
      throw failed(e);
    } catch (IOException | RuntimeException e) {
      throw failed(
          new PeerUnreachableException(
              "connection setup failed: " + e.getMessage(), peer, null, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed(new PeerUnreachableException("interrupted while connecting", peer, null, e));
    }
  }

  /** Live reading connections (tests). */
  public int openConnections() {
    return connector == null ? 0 : connector.openCount();
  }

  // ------------------------------------------------------------ serving side (loop thread)

  @Override
  public void connectRequest(RdmaCmId id) {
    if (responder == null) {
      CmEventLoop.destroyNow(id); // not listening yet, or being torn down
      return;
    }
    responder.connectRequest(id, !closed && unusable == null);
  }

  @Override
  public void disconnected(RdmaCmId id) {
    if (responder != null && responder.disconnected(id)) {
      return;
    }
    if (connector != null) {
      connector.disconnected(id);
    }
  }

  @Override
  public void tick() {
    VerbsResponder r = responder;
    if (r != null) {
      r.tick();
    }
  }

  /**
   * Closes the application's connections to this process's connection server (its CALLs:
   * announcements, locates), drops every queue pair served for it and releases its protection
   * domain once its regions are deregistered (at once when none is left).
   */
  @Override
  public void withdrawApplication(String application) {
    if (closed) {
      return;
    }
    super.withdrawApplication(application);
    if (unusable != null || responder == null) {
      return;
    }
    try {
      int dropped = cm.call(() -> responder.withdraw(application), connectTimeoutMillis);
      device.registrar.withdraw(application);
      LOG.info("withdrew application {}: {} served queue pair(s) dropped", application, dropped);
    } catch (IOException e) {
      LOG.warn("withdrawing application {} failed: {}", application, e.getMessage());
    }
  }

  /** Queue pairs this transport serves now (tests, doctor). */
  public int servedQueuePairs() {
    if (responder == null) {
      return 0;
    }
    try {
      return cm.call(responder::servedCount, connectTimeoutMillis);
    } catch (IOException e) {
      return -1;
    }
  }

  // ------------------------------------------------------------ lifecycle

  @Override
  public void deviceRemoved() {
    if (unusable != null) {
      return;
    }
    unusable = "the RDMA device of " + host + " was removed";
    LOG.error("{}: failing every READ and releasing its resources", unusable);
    responder.close();
    // this thread (RDMA-CM) now waits for the engine, which breaks every reading channel and
    // destroys its queue pair itself: with this thread parked nothing else uses RDMA-CM, and the
    // engine posts nothing on a queue pair after destroying it
    connector.cmParked = true;
    CountDownLatch broken = new CountDownLatch(1);
    device.agent.submit(
        () -> {
          connector.breakAll(unusable);
          broken.countDown();
        });
    try {
      broken.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    boolean engineEnded = device.stopEngine();
    connector.cmParked = false;
    connector.destroyRemaining();
    device.release(engineEnded);
    listener.destroyListener();
    // reading channels were broken above; their ids are destroyed by queued commands: run them
    // now, then let librdmacm notice the device is gone and close its context of it
    cm.later(
        () -> {
          int left = NativeExtras.syncDevices();
          LOG.info("released the removed RDMA device; {} device(s) left", left);
        });
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (announcements != null) {
      server.stopServingCalls(CallServices.VERBS_ANNOUNCE, announcements);
    }
    if (ownsServer) {
      server.close(); // no new announcements; the queue pairs below go next
    }
    if (cm != null && responder != null && unusable == null) {
      try {
        cm.call(
            () -> {
              responder.close();
              return null;
            },
            10_000);
      } catch (IOException e) {
        LOG.warn("closing served connections failed", e);
      }
    }
    // a thread that did not end may still use what it polls: that is then left to the process
    // (a leak) rather than destroyed under it (a crash)
    boolean engineEnded = device == null || unusable != null || device.stopEngine();
    // the queued id destructions (reading channels) run now, the listening id stays: it keeps
    // librdmacm's device context open until every verbs resource on it is released
    boolean cmEnded = listener == null || listener.stop();
    if (!engineEnded || !cmEnded) {
      LOG.error(
          "verbs transport on {}: the {} thread did not stop; its resources are left to the"
              + " process",
          host,
          engineEnded ? "RDMA-CM" : "completion queue");
    }
    if (device != null && unusable == null) {
      device.release(engineEnded);
    }
    if (cmEnded && listener != null) {
      listener.close();
    }
  }
}
