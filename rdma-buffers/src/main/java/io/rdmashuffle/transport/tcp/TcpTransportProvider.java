package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.transport.Availability;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportProvider;
import io.rdmashuffle.transport.TransportStartException;
import java.util.List;

/** The tcp transport needs nothing but sockets: always available. */
public final class TcpTransportProvider implements TransportProvider {
  @Override
  public TransportKind kind() {
    return TransportKind.TCP;
  }

  @Override
  public Availability probe(RdmaConf conf) {
    return Availability.available(List.of("software one-sided READs over TCP sockets"));
  }

  @Override
  public Transport start(TransportContext context) throws TransportStartException {
    return TcpTransport.start(context);
  }
}
