/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.impl.NatCmaIdPrivate;
import com.ibm.disni.verbs.impl.NatIbvQP;
import io.rdmashuffle.transport.ConnectionLostException;
import io.rdmashuffle.transport.LocalSideException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.server.CallClient;
import io.rdmashuffle.transport.verbs.AnnouncementService;
import io.rdmashuffle.transport.verbs.engine.VerbsReadChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reading side's connection setup and teardown: announces the RDMA-CM source to the peer by a
 * call to its connection server (after proving the application's secret there), connects through
 * RDMA-CM with a deadline on every step, and hands the established queue pair to the engine as a
 * {@link VerbsReadChannel}. Destroys reading queue pairs on the RDMA-CM thread and says whether
 * each is certainly gone ({@link DisniQueuePair.Lifecycle}), and releases a channel's id once the
 * engine ended it. One per transport.
 */
final class VerbsConnector {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsConnector.class);

  private final CmEventLoop cm;
  private final VerbsDevice device;
  private final CallClient calls;

  /** Peers' RDMA-CM ports where they differ from their server's port. */
  private final Map<PeerAddress, Integer> cmPorts = new ConcurrentHashMap<>();

  private final String host;
  private final long connectTimeoutMillis;
  private final int wantedDepth;
  private final long maxBytes;

  /** Reading channels by their RDMA-CM id, and their queue pairs by channel. */
  private final Map<RdmaCmId, VerbsReadChannel> clients = new ConcurrentHashMap<>();

  private final Map<VerbsReadChannel, DisniQueuePair> queuePairs = new ConcurrentHashMap<>();

  /** Established channels, until the engine ended them. */
  private final Map<VerbsReadChannel, Boolean> open = new ConcurrentHashMap<>();

  /** The RDMA-CM thread waits for the engine (device removal): the engine may use RDMA-CM. */
  volatile boolean cmParked;

  VerbsConnector(
      CmEventLoop cm,
      VerbsDevice device,
      CallClient calls,
      String host,
      long connectTimeoutMillis,
      int wantedDepth,
      long maxBytes) {
    this.cm = cm;
    this.device = device;
    this.calls = calls;
    this.host = host;
    this.connectTimeoutMillis = connectTimeoutMillis;
    this.wantedDepth = wantedDepth;
    this.maxBytes = maxBytes;
  }

  /** Live reading connections. */
  int openCount() {
    return open.size();
  }

  /**
   * Connects to {@code peer} for {@code application}: resolve the address, announce the source on
   * the peer's control port, resolve the route, create the queue pair, connect.
   */
  VerbsReadChannel connect(PeerAddress peer, String application)
      throws TransportException, IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis);
    RdmaCmId id = null;
    IbvQP qp = null;
    try {
      InetAddress peerIp = InetAddress.getByName(peer.host());
      int port = cmPorts.getOrDefault(peer, peer.port());
      for (int attempt = 0; ; attempt++) {
        id = ownSide(peer, "no RDMA-CM id", () -> cm.createId(connectTimeoutMillis));
        RdmaCmId rid = id;
        InetSocketAddress dst = new InetSocketAddress(peerIp, port);
        // bound to this transport's address first (DiSNI passes no source to rdma_resolve_addr):
        // else the kernel puts the connection on the device its route to the peer leaves by,
        // which on a host of several RDMA devices, or to this host's own address, need not be
        // the one this transport's memory is registered on, and the queue pair can't be made
        ownSide(
            peer,
            "could not bind to " + host,
            () ->
                cm.call(
                    () -> {
                      rid.bindAddr(new InetSocketAddress(InetAddress.getByName(host), 0));
                      return null;
                    },
                    remaining(deadline)));
        cm.call(
            () -> {
              rid.resolveAddr(null, dst, (int) remaining(deadline));
              return null;
            },
            remaining(deadline));
        expect(id, RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED, peer, deadline, "address");
        LOG.debug("{}: address resolved after {} ms", peer, elapsedMillis(deadline));
        InetSocketAddress source = (InetSocketAddress) cm.call(rid::getSource, remaining(deadline));
        int theirs =
            AnnouncementService.announce(calls, peer, application, source, remaining(deadline));
        if (theirs == port) {
          break;
        }
        // the peer's RDMA-CM listens on another port than its server: resolve towards that one
        // (remembered for the next connect) and announce the new id
        cmPorts.put(peer, theirs);
        port = theirs;
        cleanup(id, null);
        id = null;
        if (attempt > 0) {
          throw new PeerUnreachableException(
              "peer's RDMA-CM port changed while connecting", peer, null, null);
        }
      }
      RdmaCmId cid = id;
      cm.call(
          () -> {
            cid.resolveRoute((int) remaining(deadline));
            return null;
          },
          remaining(deadline));
      LOG.debug("{}: announced after {} ms", peer, elapsedMillis(deadline));
      expect(id, RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED, peer, deadline, "route");
      // the channel's depth is what the completion queue has room for, at most the setting;
      // the send queue may be deeper (the device's minimum), never shallower
      int room = device.agent.depthAvailable(wantedDepth);
      if (room < Math.min(wantedDepth, QueuePairs.MIN_DEPTH)) {
        throw new LocalSideException(
            "this process's completion queue is full (" + open.size() + " reading connections)",
            peer,
            null,
            null);
      }
      QueuePairs.Made made =
          ownSide(
              peer,
              "could not make a queue pair",
              () ->
                  cm.call(
                      () -> QueuePairs.reading(cid, device.registrar.ownPd(), device.cq(), room),
                      connectTimeoutMillis));
      qp = made.qp();
      DisniQueuePair dq = new DisniQueuePair(id, qp, lifecycle);
      VerbsReadChannel ch =
          new VerbsReadChannel(
              peer, application, Math.min(room, made.depth()), maxBytes, dq, device.agent);
      queuePairs.put(ch, dq);
      clients.put(id, ch);
      cm.call(
          () -> {
            cid.connect(QueuePairs.connParam());
            return null;
          },
          remaining(deadline));
      expect(id, RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED, peer, deadline, "connection");
      device.agent.register(ch);
      open.put(ch, Boolean.TRUE);
      return ch;
    } catch (IOException | RuntimeException | InterruptedException e) {
      cleanup(id, qp);
      throw e;
    }
  }

  /**
   * Runs a step of the connect that only this process's own resources take part in (its RDMA-CM id,
   * address, protection domain, completion queue): its failure is this side's, never the peer's.
   */
  private static <T> T ownSide(PeerAddress peer, String what, CmEventLoop.IoCallable<T> step)
      throws LocalSideException {
    try {
      return step.call();
    } catch (IOException | RuntimeException e) {
      throw new LocalSideException(what + ": " + e.getMessage(), peer, null, e);
    }
  }

  private void expect(
      RdmaCmId id, RdmaCmEvent.EventType want, PeerAddress peer, long deadline, String step)
      throws TransportException, InterruptedException {
    int got = cm.awaitEvent(id, deadline);
    if (got == want.ordinal()) {
      return;
    }
    RdmaCmEvent.EventType[] all = RdmaCmEvent.EventType.values();
    String what =
        got < 0
            ? "no " + step + " within " + connectTimeoutMillis + " ms"
            : step + " failed: " + (got < all.length ? all[got].name() : "event " + got);
    throw new PeerUnreachableException(what, peer, null, null);
  }

  private long elapsedMillis(long deadline) {
    return connectTimeoutMillis - TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
  }

  private static long remaining(long deadline) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  /** A connect failed: destroy what it made (it was never given to the engine). */
  private void cleanup(RdmaCmId id, IbvQP qp) {
    if (id == null) {
      return;
    }
    VerbsReadChannel ch = clients.remove(id);
    DisniQueuePair dq = ch == null ? null : queuePairs.remove(ch);
    if (dq != null) {
      open.remove(ch);
      lifecycle.destroy(dq);
    } else if (qp != null) {
      try {
        cm.call(
            () -> {
              id.destroyQP();
              return null;
            },
            connectTimeoutMillis);
      } catch (IOException e) {
        LOG.debug("destroying a queue pair after a failed connect failed", e);
      }
    }
    cm.destroyLater(id);
  }

  /**
   * Destroys reading queue pairs on the RDMA-CM thread, once. librdmacm touches an id's queue pair
   * while it processes the id's events (it moves it to RTR/RTS on a connect response), and two
   * threads destroying the same queue pair unmap its queues twice: either corrupts the process.
   * Says whether the queue pair is certainly gone: the engine releases READ targets only then.
   */
  final DisniQueuePair.Lifecycle lifecycle =
      new DisniQueuePair.Lifecycle() {
        @Override
        public boolean destroy(DisniQueuePair qp) {
          if (qp.destroyed) {
            return true;
          }
          if (qp.destroyUncertain) {
            return false;
          }
          if (cmParked) {
            return destroyNow(qp); // the RDMA-CM thread waits for the engine (device removal)
          }
          try {
            return cm.call(() -> destroyNow(qp), connectTimeoutMillis);
          } catch (IOException e) {
            // a stopped loop (never ran it) or no answer in time (it may still run): either way
            // the queue pair may be alive
            qp.destroyUncertain = true;
            LOG.warn("queue pair of a reading connection not destroyed: {}", e.getMessage());
            return false;
          }
        }

        @Override
        public boolean moveToError(DisniQueuePair qp) {
          if (qp.destroyed || qp.destroyUncertain) {
            return false;
          }
          int rc = NativeExtras.moveQpToError(((NatIbvQP) qp.qp).getObjId());
          if (rc != 0) {
            LOG.warn("moving a reading queue pair to the error state failed: errno {}", -rc);
          }
          return rc == 0;
        }
      };

  /** RDMA-CM thread (or the engine while that thread waits for it). */
  private static boolean destroyNow(DisniQueuePair qp) {
    if (qp.destroyed) {
      return true;
    }
    int rc = NativeExtras.destroyQp(((NatCmaIdPrivate) qp.cmId).getObjId());
    if (rc == 0) {
      qp.destroyed = true;
      return true;
    }
    LOG.warn("destroying a reading queue pair failed: errno {}", -rc);
    return false;
  }

  /**
   * The engine ended a channel (error, timeout, close) and delivered its READs: release its id,
   * unless its queue pair is still alive (then both are left to the process).
   */
  void channelEnded(VerbsReadChannel ch) {
    open.remove(ch);
    DisniQueuePair dq = queuePairs.remove(ch);
    if (dq == null) {
      return;
    }
    clients.remove(dq.cmId);
    if (dq.destroyed) {
      cm.destroyLater(dq.cmId);
    } else {
      LOG.error(
          "{}: its queue pair is not destroyed; it and its RDMA-CM id are left to the" + " process",
          ch);
    }
  }

  /** RDMA-CM says a reading connection's peer disconnected: the engine breaks it. */
  boolean disconnected(RdmaCmId id) {
    VerbsReadChannel ch = clients.get(id);
    if (ch == null) {
      return false;
    }
    device.agent.breakLater(
        ch, new ConnectionLostException("peer disconnected", ch.peer(), null, null));
    return true;
  }

  /** Agent thread: breaks every reading channel (the device is gone). */
  void breakAll(String why) {
    for (VerbsReadChannel ch : List.copyOf(open.keySet())) {
      device.agent.breakChannel(ch, new ConnectionLostException(why, ch.peer(), null, null));
    }
  }

  /** RDMA-CM thread, engine stopped: destroys queue pairs the engine never saw (connects). */
  void destroyRemaining() {
    for (VerbsReadChannel ch : List.copyOf(clients.values())) {
      DisniQueuePair dq = queuePairs.get(ch);
      if (dq != null && !dq.destroyUncertain) {
        destroyNow(dq);
      }
    }
  }
}
