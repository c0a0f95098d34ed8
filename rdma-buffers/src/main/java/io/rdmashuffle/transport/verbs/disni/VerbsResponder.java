/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCmId;
import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.verbs.ConnectExpectations;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving side: the NIC answers READs, this class only decides who gets a queue pair. A connect
 * request is accepted when an authenticated peer announced its RDMA-CM source for an application
 * ({@link ConnectExpectations}) and the caps on served queue pairs (per peer address and in all)
 * leave room; its queue pair lives in that application's protection domain.
 *
 * <p>Served queue pairs are dropped when their peer disconnects, when their peer no longer answers
 * the liveness probe ({@link ServedLiveness}: its host vanished without disconnecting), when their
 * application is withdrawn (its job ended: then its protection domain goes too, once its regions
 * are deregistered) and when the transport closes or loses its device. RDMA-CM thread only (its
 * events, its loop's rounds, and {@code CmEventLoop.call}).
 */
final class VerbsResponder {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsResponder.class);

  /** A queue pair served to a peer for an application. */
  private record Served(IbvQP qp, String application, InetAddress peer) {}

  private final VerbsRegistrar registrar;
  private final ServedLiveness liveness;
  private final ConnectExpectations expectations;
  private final TransportMetrics metrics;
  private final int maxServed;
  private final int maxPerPeer;
  private final Map<RdmaCmId, Served> served = new HashMap<>();
  private final Map<InetAddress, Integer> perPeer = new HashMap<>();
  private boolean closed;

  VerbsResponder(
      VerbsRegistrar registrar,
      ServedLiveness liveness,
      ConnectExpectations expectations,
      TransportMetrics metrics,
      int maxServed,
      int maxPerPeer) {
    this.registrar = registrar;
    this.liveness = liveness;
    this.expectations = expectations;
    this.metrics = metrics;
    this.maxServed = maxServed;
    this.maxPerPeer = maxPerPeer;
  }

  int servedCount() {
    return served.size();
  }

  /**
   * A peer asks for a queue pair: accept it when announced and within the caps, else refuse (the id
   * is destroyed, which rejects the request).
   *
   * @param open whether the transport still serves (not closed, device present)
   */
  void connectRequest(RdmaCmId id, boolean open) {
    String app = null;
    try {
      InetSocketAddress from = (InetSocketAddress) id.getDestination();
      app = from == null ? null : expectations.claim(from);
      if (app == null || !open || closed) {
        metrics.failure(FailureKind.AUTHENTICATION);
        LOG.warn(
            "refused an RDMA-CM connect from {}: not announced by an authenticated peer", from);
        CmEventLoop.destroyNow(id);
        return;
      }
      String refusal = capsRefusal(from.getAddress());
      if (refusal != null) {
        LOG.warn("refused an RDMA-CM connect from {} for {}: {}", from, app, refusal);
        CmEventLoop.destroyNow(id);
        return;
      }
      IbvPd pd = registrar.pdOf(app);
      IbvQP qp = QueuePairs.served(id, pd, liveness.cq());
      served.put(id, new Served(qp, app, from.getAddress()));
      perPeer.merge(from.getAddress(), 1, Integer::sum);
      id.accept(QueuePairs.connParam());
      liveness.watch(id, qp);
    } catch (IOException | RuntimeException e) {
      LOG.warn("accepting an RDMA-CM connect for {} failed", app, e);
      drop(id);
    }
  }

  /** Why the caps refuse one more queue pair for {@code peer}, or null when it fits. */
  private String capsRefusal(InetAddress peer) {
    if (served.size() >= maxServed) {
      return served.size()
          + " queue pairs served, the most verbs.servedQueuePairs.max="
          + maxServed
          + " allows";
    }
    int n = perPeer.getOrDefault(peer, 0);
    if (n >= maxPerPeer) {
      return n
          + " queue pairs served to this peer, the most"
          + " verbs.servedQueuePairs.maxPerPeer="
          + maxPerPeer
          + " allows";
    }
    return null;
  }

  /** Whether {@code id} is a served queue pair's; drops it if so (its peer disconnected). */
  boolean disconnected(RdmaCmId id) {
    if (!served.containsKey(id)) {
      return false;
    }
    drop(id);
    return true;
  }

  /** Probes the served queue pairs (a round of the RDMA-CM loop); drops those found lost. */
  void tick() {
    if (!closed) {
      liveness.tick(this::lost);
    }
  }

  private void lost(RdmaCmId id, String why) {
    Served s = served.get(id);
    if (s == null) {
      return;
    }
    metrics.servedPeerLost();
    LOG.warn(
        "dropped the queue pair served to {} for application {}: {} (its host is gone or"
            + " unreachable)",
        s.peer().getHostAddress(),
        s.application(),
        why);
    drop(id);
  }

  /** Drops every queue pair served for {@code application}; returns how many. */
  int withdraw(String application) {
    List<RdmaCmId> ids = new ArrayList<>();
    served.forEach(
        (id, s) -> {
          if (s.application().equals(application)) {
            ids.add(id);
          }
        });
    ids.forEach(this::drop);
    return ids.size();
  }

  /**
   * Drops every served queue pair, then their completion queue (transport closing, device gone);
   * refuses every connect request from then on.
   */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (RdmaCmId id : new ArrayList<>(served.keySet())) {
      drop(id);
    }
    liveness.close();
  }

  private void drop(RdmaCmId id) {
    Served s = served.remove(id);
    if (s != null) {
      liveness.unwatch(id);
      perPeer.computeIfPresent(s.peer(), (k, n) -> n <= 1 ? null : n - 1);
      try {
        id.destroyQP();
      } catch (IOException | RuntimeException e) {
        LOG.debug("destroying a served queue pair failed", e);
      }
    }
    CmEventLoop.destroyNow(id);
  }
}
