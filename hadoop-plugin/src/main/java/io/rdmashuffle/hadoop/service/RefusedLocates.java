/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import io.rdmashuffle.metrics.Refusal;
import io.rdmashuffle.metrics.TransportMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locate requests over the shuffle port refused before they proved anything (an unknown job, a
 * wrong or missing hash): counted, and logged at most once per {@value #INTERVAL_SECONDS} seconds
 * with how many were not logged since and the latest one's job id made safe to print (a requester
 * chooses that text: only job id characters are kept, and only {@value #MAX_ID_CHARS} of them).
 * What the requester gets back is the same for every cause; the log says which. Thread-safe.
 */
final class RefusedLocates {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaShuffleHandler.class);
  static final int INTERVAL_SECONDS = 10;
  private static final long INTERVAL_NANOS = INTERVAL_SECONDS * 1_000_000_000L;
  static final int MAX_ID_CHARS = 64;

  /** The one answer body of every such refusal. */
  static final String ANSWER = "request not authenticated";

  private final TransportMetrics metrics;
  private long lastLogged = Long.MIN_VALUE;
  private long notLogged;

  RefusedLocates(TransportMetrics metrics) {
    this.metrics = metrics;
  }

  /** Counts one refusal of a request naming {@code jobId}; logs it unless one was just logged. */
  void refused(String jobId, String why) {
    metrics.refused(Refusal.LOCATE_UNAUTHENTICATED);
    long since;
    synchronized (this) {
      long now = System.nanoTime();
      if (lastLogged != Long.MIN_VALUE && now - lastLogged < INTERVAL_NANOS) {
        notLogged++;
        return;
      }
      lastLogged = now;
      since = notLogged;
      notLogged = 0;
    }
    LOG.warn(
        "refused a locate request for job {}: {}{}",
        printable(jobId),
        why,
        since == 0 ? "" : " (" + since + " more refused since the last of these lines)");
  }

  /**
   * {@code text} with every character but letters, digits and {@code _-.:} replaced by {@code ?},
   * cut to {@value #MAX_ID_CHARS} characters.
   */
  static String printable(String text) {
    if (text == null) {
      return "(none)";
    }
    StringBuilder b = new StringBuilder(Math.min(text.length(), MAX_ID_CHARS) + 3);
    for (int i = 0; i < text.length() && i < MAX_ID_CHARS; i++) {
      char c = text.charAt(i);
      boolean safe =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-'
              || c == '.'
              || c == ':';
      b.append(safe ? c : '?');
    }
    if (text.length() > MAX_ID_CHARS) {
      b.append("...");
    }
    return b.toString();
  }
}
