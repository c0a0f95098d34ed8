package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.Refusal;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The connection server's bounds on connections: in their handshake (in total and per source
 * address) and authenticated (in total, per source address and per application). A connection takes
 * a place before it may proceed and gives it back when it leaves that stage. Thread-safe; one per
 * server.
 */
final class Admission {
  private final ServerLimits limits;
  private int handshakes;
  private final Map<InetAddress, Integer> handshakesBySource = new HashMap<>();
  private int connections;
  private final Map<InetAddress, Integer> connectionsBySource = new HashMap<>();
  private final Map<String, Integer> connectionsByApplication = new HashMap<>();

  Admission(ServerLimits limits) {
    this.limits = limits;
  }

  /** Takes a handshake place for a connection from {@code source}, or says which bound refuses. */
  synchronized Refusal tryHandshake(InetAddress source) {
    if (handshakes >= limits.maxHandshakes()) {
      return Refusal.HANDSHAKES;
    }
    if (handshakesBySource.getOrDefault(source, 0) >= limits.maxHandshakesPerSource()) {
      return Refusal.HANDSHAKES_PER_SOURCE;
    }
    handshakes++;
    handshakesBySource.merge(source, 1, Integer::sum);
    return null;
  }

  synchronized void handshakeEnded(InetAddress source) {
    handshakes--;
    decrement(handshakesBySource, source);
  }

  /** Takes a connection place for an authenticated connection, or says which bound refuses. */
  synchronized Refusal tryConnection(InetAddress source, String application) {
    if (connections >= limits.maxConnections()) {
      return Refusal.CONNECTIONS;
    }
    if (connectionsBySource.getOrDefault(source, 0) >= limits.maxConnectionsPerSource()) {
      return Refusal.CONNECTIONS_PER_SOURCE;
    }
    if (connectionsByApplication.getOrDefault(application, 0)
        >= limits.maxConnectionsPerApplication()) {
      return Refusal.CONNECTIONS_PER_APPLICATION;
    }
    connections++;
    connectionsBySource.merge(source, 1, Integer::sum);
    connectionsByApplication.merge(application, 1, Integer::sum);
    return null;
  }

  synchronized void connectionEnded(InetAddress source, String application) {
    connections--;
    decrement(connectionsBySource, source);
    decrement(connectionsByApplication, application);
  }

  synchronized int handshakes() {
    return handshakes;
  }

  synchronized int connections() {
    return connections;
  }

  private static <K> void decrement(Map<K, Integer> m, K key) {
    m.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
  }
}
