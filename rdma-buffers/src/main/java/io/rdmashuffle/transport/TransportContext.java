package io.rdmashuffle.transport;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.server.ConnectionServer;

/**
 * What a transport needs to start: the settings, the application secrets it serves and proves, the
 * host to advertise when the settings leave it empty, the counters to count into, and the process's
 * connection server (it owns the TCP port every transport serves on).
 *
 * <p>{@link TransportSelector#start} creates the server before the transport. A transport started
 * with a server serves on it and, once started, owns it (closes it with itself); a transport that
 * fails to start leaves it to whoever made it. A context without a server (null) makes the
 * transport create and own its own, bound to {@code host} and {@code port} of the settings.
 */
public record TransportContext(
    RdmaConf conf,
    ApplicationSecrets secrets,
    String defaultHost,
    TransportMetrics metrics,
    ConnectionServer server) {

  /** A context whose transport creates its own connection server. */
  public TransportContext(
      RdmaConf conf, ApplicationSecrets secrets, String defaultHost, TransportMetrics metrics) {
    this(conf, secrets, defaultHost, metrics, null);
  }

  /** This context with {@code server}. */
  public TransportContext withServer(ConnectionServer server) {
    return new TransportContext(conf, secrets, defaultHost, metrics, server);
  }

  /** The host to bind and advertise: the {@code host} setting, else {@link #defaultHost}. */
  public String host() {
    String h = conf.get(io.rdmashuffle.config.RdmaShuffleConfig.HOST);
    return h.isEmpty() ? defaultHost : h;
  }
}
