/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.mapoutput.ChecksumAnswer;
import io.rdmashuffle.mapoutput.ChecksumRequest;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.transport.PeerAddress;
import java.util.concurrent.CompletableFuture;

/**
 * Asks the process that serves some map outputs where to READ them: the reading half of the one
 * wire description of where to READ ({@link LocateRequest}, {@link LocateAnswer}). Spark executors
 * ask over a transport call; implementations must not block the caller.
 */
public interface Locator {
  /**
   * @return the answer, or a future that fails with a {@code TransportException} when the owner
   *     can't be asked (unreachable, refused, timed out)
   */
  CompletableFuture<LocateAnswer> locate(
      PeerAddress owner, String application, LocateRequest request);

  /**
   * Tells {@code owner} the reader is done with what {@code request} names, so it may deregister
   * them to make room. Fire and forget: must not block; a lost release only means the leases time
   * out. The default tells nobody (a locator whose owner keeps no leases).
   */
  default void release(PeerAddress owner, String application, ReleaseRequest request) {}

  /**
   * The largest answer this locator takes ({@code call.maxAnswerBytes} of a transport call): the
   * reader sizes its requests to fit it ({@link io.rdmashuffle.mapoutput.LocateLayout}'s planned
   * sizes). Without a bound of its own (a locator in the serving process), only the owner's bound
   * applies: it answers a prefix of what would not fit and the reader asks again for the rest.
   */
  default long maxAnswerBytes() {
    return Long.MAX_VALUE;
  }

  /**
   * The largest request this locator sends ({@code call.maxRequestBytes} of a transport call): a
   * reader that merges requests keeps them within it. Without a bound of its own, none.
   */
  default long maxRequestBytes() {
    return Long.MAX_VALUE;
  }

  /**
   * Asks the owner what checksum a partition of one of its map outputs has in its file now (a block
   * read from it did not match its published checksum: {@link CorruptionDiagnosis}).
   *
   * @return the answer, or a future that fails when the owner can't be asked; a locator that can't
   *     ask fails it with {@code UnsupportedOperationException}
   */
  default CompletableFuture<ChecksumAnswer> checksum(
      PeerAddress owner, String application, ChecksumRequest request) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this locator can't ask for checksums"));
  }
}
