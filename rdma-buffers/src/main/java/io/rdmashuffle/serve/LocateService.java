/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.ReleaseLayout;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers "where do I READ these map outputs?" for the peers of admitted applications, from an
 * {@link OutputCatalog}: the serving half of the one wire description of where to READ. Spark
 * readers reach it as a transport call; the MapReduce service calls {@link #answer} for requests
 * that arrive on the stock shuffle's port. An answer never passes its bound ({@code
 * call.maxAnswerBytes}): it is measured map by map before it is built ({@link LocateLayout}'s
 * sizes), and the maps that would not fit are answered {@link Status#DEFERRED} (the reader asks
 * again for them), so a wide request is answered in parts, never refused. What it answers is leased
 * to the request's reader until it releases it ({@link #release}) or the lease times out.
 * Thread-safe.
 */
public final class LocateService {
  private final OutputCatalog catalog;
  private final TransportKind transport;
  private final PeerAddress responder;
  private final long maxAnswerBytes;

  /**
   * @param transport the transport that serves the READs
   * @param responder where readers READ (the transport's address)
   * @param maxAnswerBytes the largest answer, in {@link LocateLayout}'s bytes
   */
  public LocateService(
      OutputCatalog catalog, TransportKind transport, PeerAddress responder, long maxAnswerBytes) {
    long least = LocateLayout.answerHeaderBytes(responder);
    if (maxAnswerBytes <= least) {
      throw new IllegalArgumentException(
          "maxAnswerBytes=" + maxAnswerBytes + ": must exceed an answer's header of " + least);
    }
    this.catalog = catalog;
    this.transport = transport;
    this.responder = responder;
    this.maxAnswerBytes = maxAnswerBytes;
  }

  /**
   * The answer for {@code application}, whose peer's connection proved it: the maps asked for in
   * order, as many as fit, then {@link Status#DEFERRED} for the rest.
   */
  public LocateAnswer answer(String application, LocateRequest request) {
    int n = request.maps().size();
    // one wait for room per answer, not per map: a full server answers busy within the bound
    long deadline = System.nanoTime() + catalog.limits().locateWaitNanos();
    long partitions = (long) request.endPartition() - request.startPartition();
    // room kept for deferring every map after the one being answered
    long[] deferAfter = new long[n + 1];
    for (int i = n - 1; i >= 0; i--) {
      deferAfter[i] = deferAfter[i + 1] + LocateLayout.failedEntryBytes(request.maps().get(i), 0);
    }
    List<Located> out = new ArrayList<>(n);
    long used = LocateLayout.answerHeaderBytes(responder);
    int i = 0;
    for (; i < n; i++) {
      String map = request.maps().get(i);
      long room = maxAnswerBytes - used - deferAfter[i + 1];
      if (LocateLayout.leastOkEntryBytes(map, partitions) > room) {
        break; // not even located: a table that can't be sent is never built
      }
      Located e =
          catalog.locate(
              request.id(application, i),
              request.startPartition(),
              request.endPartition(),
              request.localPaths(),
              request.reader(),
              deadline);
      long bytes = LocateLayout.entryBytes(e);
      if (bytes > room) {
        break; // its registration stays for the reader's next call
      }
      out.add(e);
      used += bytes;
      if (e.ok()) {
        // a reader with something to READ is not kept waiting for room for the rest: those are
        // answered busy at once, and it asks again as it finishes what it has
        deadline = System.nanoTime();
      }
    }
    for (; i < n; i++) {
      out.add(Located.failed(request.maps().get(i), Status.DEFERRED, ""));
      catalog.metrics().answered(Status.DEFERRED);
    }
    return new LocateAnswer(transport, responder, out);
  }

  /** Ends the leases a reader of {@code application} is done with (a {@link ReleaseRequest}). */
  public void release(String application, ReleaseRequest request) {
    catalog.release(application, request);
  }

  /**
   * Decodes a release and ends those leases.
   *
   * @throws IllegalArgumentException when the request is not a valid one (the message names the
   *     field)
   */
  public void release(String application, ByteBuffer request) {
    release(application, ReleaseLayout.decode(request));
  }

  /**
   * Decodes a request, answers it and encodes the answer.
   *
   * @throws IllegalArgumentException when the request is not a valid one (the message names the
   *     field)
   */
  public ByteBuffer answer(String application, ByteBuffer request) {
    return LocateLayout.encode(answer(application, LocateLayout.decodeRequest(request)));
  }
}
