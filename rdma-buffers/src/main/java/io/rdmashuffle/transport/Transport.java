package io.rdmashuffle.transport;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.metrics.TransportMetrics;

/**
 * A one-sided READ transport: the SPI everything above is written against. One instance per
 * process, created by {@link TransportSelector}. It listens for peers (a READ responder that
 * serves registered regions with no shuffle code involved, as a NIC does), registers memory, and
 * opens authenticated {@link ReadChannel}s to peers.
 *
 * <p>Implementations: {@code tcp} (software, always available) and {@code verbs} (RDMA through
 * DiSNI). Both pass the same contract test suite.
 */
public interface Transport extends AutoCloseable {
  TransportKind kind();

  /** Where this process's responder listens; peers connect here. */
  PeerAddress localAddress();

  /** Registers memory for this transport (served regions and READ targets). */
  MemoryRegistrar registrar();

  /**
   * Opens a connection to {@code peer} and proves {@code application}'s secret, within the
   * connect timeout.
   *
   * @throws PeerUnreachableException when the peer can't be reached in time
   * @throws AuthenticationException when either side can't prove the secret
   */
  ReadChannel connect(PeerAddress peer, String application) throws TransportException;

  TransportMetrics metrics();

  /**
   * Stops the responder, closes every connection (failing what is in flight) and releases the
   * transport's resources. Regions still registered stay valid for local use until closed by
   * their owners. Idempotent.
   */
  @Override
  void close();
}
