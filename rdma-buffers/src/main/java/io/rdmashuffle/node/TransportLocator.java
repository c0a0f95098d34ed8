/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import io.rdmashuffle.fetch.Locator;
import io.rdmashuffle.mapoutput.ChecksumAnswer;
import io.rdmashuffle.mapoutput.ChecksumLayout;
import io.rdmashuffle.mapoutput.ChecksumRequest;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.ReleaseLayout;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.transport.CallServices;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.Transport;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Locator} over a transport's calls: locate, release and checksum requests go to the
 * owner's services ({@link CallServices}) in their byte layouts, and their answers are decoded.
 */
final class TransportLocator implements Locator {
  private final Transport transport;
  private final long maxAnswerBytes;
  private final long maxRequestBytes;

  TransportLocator(Transport transport, long maxAnswerBytes, long maxRequestBytes) {
    this.transport = transport;
    this.maxAnswerBytes = maxAnswerBytes;
    this.maxRequestBytes = maxRequestBytes;
  }

  @Override
  public CompletableFuture<LocateAnswer> locate(
      PeerAddress owner, String application, LocateRequest request) {
    return transport
        .call(owner, application, CallServices.LOCATE, LocateLayout.encode(request))
        .thenApply(LocateLayout::decodeAnswer);
  }

  @Override
  public void release(PeerAddress owner, String application, ReleaseRequest request) {
    // fire and forget: a lost release only means the leases time out
    transport.call(owner, application, CallServices.RELEASE, ReleaseLayout.encode(request));
  }

  @Override
  public long maxAnswerBytes() {
    return maxAnswerBytes;
  }

  @Override
  public long maxRequestBytes() {
    return maxRequestBytes;
  }

  @Override
  public CompletableFuture<ChecksumAnswer> checksum(
      PeerAddress owner, String application, ChecksumRequest request) {
    return transport
        .call(owner, application, CallServices.CHECKSUM, ChecksumLayout.encode(request))
        .thenApply(ChecksumLayout::decodeAnswer);
  }
}
