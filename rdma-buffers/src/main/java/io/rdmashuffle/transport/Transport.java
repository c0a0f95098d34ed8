/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.metrics.TransportMetrics;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A one-sided READ transport: the SPI everything above is written against. One instance per
 * process, created by the node (its transport selector picks one). It listens for peers (a READ
 * responder that serves registered regions with no shuffle code involved, as a NIC does), registers
 * memory, and opens authenticated {@link ReadChannel}s to peers.
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
   * Opens a connection to {@code peer} and proves {@code application}'s secret, within the connect
   * timeout.
   *
   * @throws PeerUnreachableException when the peer can't be reached in time
   * @throws AuthenticationException when either side can't prove the secret
   */
  ReadChannel connect(PeerAddress peer, String application) throws TransportException;

  TransportMetrics metrics();

  /**
   * Serves calls of {@code service} (an id from {@link CallServices}) with {@code handler}, on this
   * process's connection server, to peers that proved an application's secret. Replaces an earlier
   * handler of the same service.
   */
  void serveCalls(int service, CallHandler handler);

  /**
   * Calls {@code service} of {@code peer} as {@code application}, over a pooled authenticated CALL
   * connection per (peer, application). The request is at most {@code call.maxRequestBytes} and the
   * answer at most {@code call.maxAnswerBytes}.
   *
   * <p>The future completes on a transport I/O thread: attach dependents that block or take long
   * with the {@code *Async} forms. It completes exceptionally with {@link PeerUnreachableException}
   * (no connection and handshake within {@code connect.timeout}, or the peer is at a connection
   * bound), {@link AuthenticationException}, {@link CallRefusedException} (the peer's status and
   * reason; {@link CallRefusedException#isBusy()} means retry later), {@link ReadTimeoutException}
   * (no answer within {@code read.timeout}) or {@link ConnectionLostException}.
   *
   * @throws IllegalArgumentException when the request is larger than {@code call.maxRequestBytes}
   */
  CompletableFuture<ByteBuffer> call(
      PeerAddress peer, String application, int service, ByteBuffer request);

  /**
   * {@code application} ended (its job finished): release what this transport holds for it as a
   * server, the connections its peers opened here (verbs: their queue pairs, and the application's
   * protection domain once its regions are deregistered). Regions stay owned by whoever registered
   * them; connections this process opened as a reader are not touched. Idempotent. The default does
   * nothing: for a transport whose serving connections end with their peers.
   */
  default void withdrawApplication(String application) {}

  /**
   * Stops the responder, closes every connection (failing what is in flight) and releases the
   * transport's resources. Regions still registered stay valid for local use until closed by their
   * owners. Idempotent.
   */
  @Override
  void close();
}
