/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.provider;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.VerbsRegistration;

/**
 * What a process may pin in RAM for a transport that pins registered memory (verbs without
 * on-demand paging), by the bounds of what it does: a serving process its served map outputs
 * ({@code serve.maxPinnedBytes}; nothing when {@code verbs.registration=odp}, which never pins
 * them), a reading process its READ buffers ({@code buffers.maxBytes}), a process that does both
 * their sum. The verbs probe checks the memlock limit against it.
 *
 * @param bytes the bytes that may be pinned at once
 * @param bounds the settings that bound them, with their values (for messages)
 */
public record PinnedMemory(long bytes, String bounds) {

  /** What a process that serves ({@code serving}) and/or reads ({@code reading}) may pin. */
  public static PinnedMemory of(RdmaConf conf, boolean serving, boolean reading) {
    return of(conf, conf.get(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES), serving, reading);
  }

  /**
   * As {@link #of(RdmaConf, boolean, boolean)}, for a serving process whose bound on pinned outputs
   * is {@code servePinnedBytes} (derived from its limits when the operator set none).
   */
  public static PinnedMemory of(
      RdmaConf conf, long servePinnedBytes, boolean serving, boolean reading) {
    long bytes = 0;
    StringBuilder bounds = new StringBuilder();
    boolean servedPinned = conf.get(RdmaShuffleConfig.VERBS_REGISTRATION) != VerbsRegistration.ODP;
    if (serving && servedPinned) {
      bytes += servePinnedBytes;
      bounds
          .append(conf.keyOf(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES))
          .append('=')
          .append(servePinnedBytes);
    }
    if (reading) {
      bytes += conf.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES);
      bounds
          .append(bounds.length() == 0 ? "" : " + ")
          .append(conf.keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES))
          .append('=')
          .append(conf.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES));
    }
    if (!serving && !reading) {
      throw new IllegalArgumentException("a process that neither serves nor reads pins nothing");
    }
    if (bounds.length() == 0) {
      bounds.append(conf.keyOf(RdmaShuffleConfig.VERBS_REGISTRATION)).append("=odp pins nothing");
    }
    return new PinnedMemory(bytes, bounds.toString());
  }

  /**
   * Why {@code memlock} (bytes; {@code Long.MAX_VALUE} unlimited, negative unknown) is too low for
   * this, or null when it is enough or unknown.
   */
  public String memlockShortfall(long memlock) {
    if (memlock < 0 || memlock >= bytes) {
      return null;
    }
    return "memlock limit "
        + memlock
        + " bytes is below "
        + bounds
        + " (raise it with ulimit -l / limits.conf / LimitMEMLOCK)";
  }
}
