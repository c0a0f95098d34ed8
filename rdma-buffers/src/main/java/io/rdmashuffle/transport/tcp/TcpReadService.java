package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.Handshake;
import io.rdmashuffle.transport.server.ConnectionService;
import io.rdmashuffle.transport.server.ServedConnection;
import io.rdmashuffle.transport.server.Session;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The software NIC of the tcp transport: the connection server hands it every connection that
 * proved its secret for {@code READ}, and it serves each with a {@link ReadSession} straight from
 * the transport's region table. No shuffle code runs here. Owned by {@link TcpTransport}.
 */
final class TcpReadService implements ConnectionService {
  private final TcpRegionTable table;
  private final TransportMetrics metrics;
  private final boolean sendfile;
  private final long withdrawTimeoutNanos;
  private final AtomicInteger sessions = new AtomicInteger();

  TcpReadService(
      TcpRegionTable table, TransportMetrics metrics, boolean sendfile, long withdrawTimeoutNanos) {
    this.table = table;
    this.metrics = metrics;
    this.sendfile = sendfile;
    this.withdrawTimeoutNanos = withdrawTimeoutNanos;
  }

  @Override
  public Session open(ServedConnection connection, Handshake.Result handshake) {
    sessions.incrementAndGet();
    return new ReadSession(this, connection, handshake.application(), handshake.clientToServer());
  }

  void sessionEnded(ReadSession s) {
    sessions.decrementAndGet();
  }

  int sessions() {
    return sessions.get();
  }

  TcpRegionTable table() {
    return table;
  }

  TransportMetrics metrics() {
    return metrics;
  }

  boolean sendfile() {
    return sendfile;
  }

  long withdrawTimeoutNanos() {
    return withdrawTimeoutNanos;
  }
}
