/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.transport.CallHandler;
import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.CallServices;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.PeerUnreachableException;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.server.CallClient;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The verbs transport's connect announcement ({@link ConnectLayout}), served as call service {@link
 * CallServices#VERBS_ANNOUNCE} on the process's connection server: a reader that proved its
 * application's secret announces the RDMA-CM source it will connect from, and only announced
 * connects get a queue pair. An announcement must name the address its call comes from, belongs to
 * the application that made it (a peer of another application can't take it over), and is bounded
 * ({@link ConnectExpectations}). The answer is the RDMA-CM listening port. Also the reader's side
 * of the exchange, {@link #announce}. No RDMA here: testable on any host.
 */
public final class AnnouncementService implements CallHandler {
  /** The announced address is not the one the announcement came from. */
  public static final int SOURCE_MISMATCH = CallRefusedException.FIRST_SERVICE_STATUS;

  /** A live announcement of that source belongs to another application. */
  public static final int TAKEN = SOURCE_MISMATCH + 1;

  /** The peer has too many live announcements. */
  public static final int PEER_FULL = TAKEN + 1;

  /** The responder has too many live announcements. */
  public static final int FULL = PEER_FULL + 1;

  /** The application is no longer served here (withdrawn), whatever its connection proved. */
  public static final int WITHDRAWN = FULL + 1;

  private final ConnectExpectations expectations;
  private final IntSupplier cmPort;
  private final Predicate<String> admitted;

  /**
   * @param cmPort the RDMA-CM listening port, told to every announcer
   * @param admitted whether an application is still served here: a connection authenticated before
   *     its withdrawal announces nothing after it
   */
  public AnnouncementService(
      ConnectExpectations expectations, IntSupplier cmPort, Predicate<String> admitted) {
    this.expectations = expectations;
    this.cmPort = cmPort;
    this.admitted = admitted;
  }

  @Override
  public ByteBuffer answer(String application, ByteBuffer request) throws CallRefusedException {
    throw new CallRefusedException(
        CallRefusedException.FAILED, "an announcement needs the caller's address");
  }

  @Override
  public ByteBuffer answer(Caller caller, ByteBuffer request) throws CallRefusedException {
    InetSocketAddress source;
    try {
      source = ConnectLayout.decodeAnnouncement(request);
    } catch (IllegalArgumentException e) {
      throw new CallRefusedException(CallRefusedException.MALFORMED, e.getMessage());
    }
    if (!admitted.test(caller.application())) {
      throw new CallRefusedException(
          WITHDRAWN, "application " + caller.application() + " is no longer served here");
    }
    if (!source.getAddress().equals(caller.address().getAddress())) {
      throw new CallRefusedException(
          SOURCE_MISMATCH,
          "announced source "
              + source.getAddress().getHostAddress()
              + " is not the address the announcement came from, "
              + caller.address().getAddress().getHostAddress());
    }
    switch (expectations.expect(source, caller.application())) {
      case ACCEPTED -> {
        return ConnectLayout.encodeAnswer(cmPort.getAsInt());
      }
      case TAKEN ->
          throw new CallRefusedException(
              TAKEN, "an announcement of another application holds that source");
      case PEER_FULL ->
          throw new CallRefusedException(
              PEER_FULL,
              "too many announced connects from " + source.getAddress().getHostAddress());
      default -> throw new CallRefusedException(FULL, "too many announced connects");
    }
  }

  /**
   * The reader's side: announces {@code source} to {@code peer} as {@code application}, over a CALL
   * connection that leaves from {@code source}'s address; returns the peer's RDMA-CM port.
   *
   * @throws TransportException as the call failed (unreachable, authentication, refused, timeout)
   */
  public static int announce(
      CallClient calls,
      PeerAddress peer,
      String application,
      InetSocketAddress source,
      long timeoutMillis)
      throws TransportException {
    ByteBuffer answer;
    try {
      answer =
          calls
              .call(
                  peer,
                  application,
                  CallServices.VERBS_ANNOUNCE,
                  ConnectLayout.encodeAnnouncement(source),
                  source.getAddress())
              .get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TransportException t) {
        throw t;
      }
      throw new PeerUnreachableException(
          "announcement failed: " + e.getCause(), peer, null, e.getCause());
    } catch (TimeoutException e) {
      throw new PeerUnreachableException(
          "no announcement answer within " + timeoutMillis + " ms", peer, null, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PeerUnreachableException("interrupted while announcing", peer, null, e);
    }
    try {
      return ConnectLayout.decodeAnswer(answer);
    } catch (IllegalArgumentException e) {
      throw new PeerUnreachableException(
          "peer answered the announcement with nonsense: " + e.getMessage(), peer, null, null);
    }
  }
}
