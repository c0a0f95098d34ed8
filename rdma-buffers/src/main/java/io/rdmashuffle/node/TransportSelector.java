/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.LeakDetector;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.provider.Availability;
import io.rdmashuffle.transport.provider.PinnedMemory;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.provider.TransportProvider;
import io.rdmashuffle.transport.server.ConnectionServer;
import io.rdmashuffle.transport.tcp.TcpTransportProvider;
import io.rdmashuffle.transport.verbs.VerbsTransportProvider;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses and starts this process's transport from {@code transport = auto | verbs | tcp}. {@code
 * auto} tries verbs, and when verbs can't run here it starts tcp, logs the cause once per process
 * and counts the fallback; a forced transport is the only one probed. {@link #choose} (the
 * doctor's) probes every transport, to show them all. A forced transport that can't run fails with
 * its cause: never a silent substitute. Starting a transport is also where a process switches on
 * leak detection ({@code debug.leakDetection}).
 */
public final class TransportSelector {
  private static final Logger LOG = LoggerFactory.getLogger(TransportSelector.class);
  private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

  private final Map<TransportKind, TransportProvider> providers =
      new EnumMap<>(TransportKind.class);

  public TransportSelector(List<TransportProvider> list) {
    for (TransportProvider p : list) {
      providers.put(p.kind(), p);
    }
  }

  /** verbs, then tcp. */
  public static TransportSelector standard() {
    return new TransportSelector(List.of(new VerbsTransportProvider(), new TcpTransportProvider()));
  }

  /** What {@code auto} (or the configured transport) would pick here, and why. */
  public record Choice(
      TransportKind kind, Map<TransportKind, Availability> probes, String reason) {}

  public Choice choose(RdmaConf conf) {
    return choose(conf, PinnedMemory.of(conf, false, true));
  }

  /** What would be picked for a process that may pin {@code pinned}, and why. */
  public Choice choose(RdmaConf conf, PinnedMemory pinned) {
    TransportKind wanted = conf.get(RdmaShuffleConfig.TRANSPORT);
    Map<TransportKind, Availability> probes = new EnumMap<>(TransportKind.class);
    for (TransportProvider p : providers.values()) {
      probes.put(p.kind(), p.probe(conf, pinned));
    }
    if (wanted != TransportKind.AUTO) {
      Availability a = probes.get(wanted);
      return new Choice(
          wanted,
          probes,
          a.available()
              ? "forced by " + conf.keyOf(RdmaShuffleConfig.TRANSPORT)
              : "forced by "
                  + conf.keyOf(RdmaShuffleConfig.TRANSPORT)
                  + " but unavailable: "
                  + a.cause());
    }
    Availability verbs = probes.get(TransportKind.VERBS);
    if (verbs != null && verbs.available()) {
      return new Choice(TransportKind.VERBS, probes, "auto: verbs is available");
    }
    return new Choice(
        TransportKind.TCP,
        probes,
        "auto: verbs unavailable (" + (verbs == null ? "not built" : verbs.cause()) + ")");
  }

  /**
   * Starts the transport the configuration asks for, on a new connection server bound to the {@code
   * host} setting (else {@code defaultHost}) and the {@code port} setting; the started transport
   * owns the server, which is closed again when no transport starts.
   *
   * @throws TransportStartException when no transport can start (a forced one can't, or the server
   *     can't listen); the message says why
   */
  public Transport start(
      RdmaConf conf, ApplicationSecrets secrets, String defaultHost, TransportMetrics metrics)
      throws TransportStartException {
    return start(conf, secrets, defaultHost, metrics, PinnedMemory.of(conf, false, true));
  }

  /**
   * Starts the transport for a process that may pin {@code pinned} (what it serves and what it
   * reads into): the memlock limit is checked against that.
   */
  public Transport start(
      RdmaConf conf,
      ApplicationSecrets secrets,
      String defaultHost,
      TransportMetrics metrics,
      PinnedMemory pinned)
      throws TransportStartException {
    return start(conf, secrets, defaultHost, metrics, pinned, false);
  }

  /**
   * As above; with {@code bindAllAddresses} and no {@code host} setting, the connection server
   * listens on every address of the host and advertises {@code defaultHost} (a NodeManager's
   * services, whose readers are on other hosts whatever the host's name resolves to here).
   */
  public Transport start(
      RdmaConf conf,
      ApplicationSecrets secrets,
      String defaultHost,
      TransportMetrics metrics,
      PinnedMemory pinned,
      boolean bindAllAddresses)
      throws TransportStartException {
    if (conf.get(RdmaShuffleConfig.DEBUG_LEAK_DETECTION)) {
      LeakDetector.enable();
    }
    String configured = conf.get(RdmaShuffleConfig.HOST);
    String host = configured.isEmpty() ? defaultHost : configured;
    ConnectionServer server;
    try {
      String bindHost = configured.isEmpty() && bindAllAddresses ? "0.0.0.0" : host;
      server = ConnectionServer.start(conf, secrets, metrics, bindHost, host);
    } catch (java.io.IOException | RuntimeException e) {
      throw new TransportStartException(
          "rdma-shuffle could not listen on "
              + host
              + ":"
              + conf.get(RdmaShuffleConfig.PORT)
              + ": "
              + e.getMessage(),
          e);
    }
    try {
      return startOn(new TransportContext(conf, secrets, host, metrics, server), pinned);
    } catch (TransportStartException | RuntimeException | Error e) {
      server.close();
      throw e;
    }
  }

  /**
   * Starts the chosen transport, probing only what the choice needs: a forced transport is the only
   * one asked (a tcp process never touches the verbs library or its devices), and {@code auto} asks
   * verbs once, by starting it (a provider's start is its probe), and starts tcp when verbs can't
   * run or start.
   */
  private Transport startOn(TransportContext context, PinnedMemory pinned)
      throws TransportStartException {
    TransportKind wanted = context.conf().get(RdmaShuffleConfig.TRANSPORT);
    if (wanted != TransportKind.AUTO) {
      try {
        return providers.get(wanted).start(context, pinned);
      } catch (TransportStartException e) {
        throw new TransportStartException(
            "transport " + name(wanted) + " can't run on this node: " + e.getMessage(), e);
      }
    }
    TransportProvider verbs = providers.get(TransportKind.VERBS);
    if (verbs != null) {
      try {
        return verbs.start(context, pinned);
      } catch (TransportStartException e) {
        fellBack(context, e.getMessage());
      }
    } else {
      fellBack(context, "the verbs transport is not built in");
    }
    return providers.get(TransportKind.TCP).start(context, pinned);
  }

  private static void fellBack(TransportContext context, String cause) {
    context.metrics().fallback();
    if (LOGGED.add(cause)) {
      LOG.warn("rdma-shuffle runs the tcp transport on this node: {}", cause);
    }
  }

  private static String name(TransportKind k) {
    return k.name().toLowerCase(java.util.Locale.ROOT);
  }
}
