package io.rdmashuffle.transport;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;

/** Knows whether one transport can run here and starts it. */
public interface TransportProvider {
  TransportKind kind();

  /**
   * Probes this node (native library, devices, limits). Cheap after the first call: providers cache
   * what does not depend on {@code conf}.
   */
  Availability probe(RdmaConf conf);

  /**
   * Probes this node for a process that may pin {@code pinned} (a transport that pins registered
   * memory checks the memlock limit against it). The default ignores it.
   */
  default Availability probe(RdmaConf conf, PinnedMemory pinned) {
    return probe(conf);
  }

  /**
   * Starts the transport.
   *
   * @throws TransportStartException when it can't start; the message says why
   */
  Transport start(TransportContext context) throws TransportStartException;

  /** Starts the transport for a process that may pin {@code pinned}; the default ignores it. */
  default Transport start(TransportContext context, PinnedMemory pinned)
      throws TransportStartException {
    return start(context);
  }
}
