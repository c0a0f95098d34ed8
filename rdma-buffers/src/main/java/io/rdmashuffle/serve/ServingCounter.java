/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.counters.CounterDescriptor;
import io.rdmashuffle.mapoutput.LocateAnswer;

/**
 * The counters of one process's serving side ({@link ServingMetrics}), each declared once with its
 * stable id (200..299), exported name and label. The answers by outcome name their {@link
 * LocateAnswer.Status}: each status has exactly one counter.
 */
public enum ServingCounter implements CounterDescriptor {
  REGISTRATIONS(200, "serve.registrations", "Map outputs registered with the transport"),
  RE_REGISTRATIONS(
      201, "serve.reRegistrations", "Registrations of outputs that had been evicted before"),
  REGISTRATION_MICROS(
      202, "serve.registrationMicros", "Time spent registering map outputs (µs, summed)"),
  EVICTIONS(203, "serve.evictions", "Registered map outputs deregistered to make room"),
  LOCATED(
      210,
      "serve.located",
      LocateAnswer.Status.OK,
      "Map outputs located for readers (answered OK)"),
  NOT_FOUND(
      211,
      "serve.notFound",
      LocateAnswer.Status.NOT_FOUND,
      "Map outputs asked for that this process does not have"),
  REFUSED(
      212,
      "serve.refused",
      LocateAnswer.Status.REFUSED,
      "Map outputs refused: not the asking application's, or files where they may not lie"),
  FAILED(
      213,
      "serve.failed",
      LocateAnswer.Status.FAILED,
      "Map outputs whose files could not be read (I/O error, truncated, damaged)"),
  UNAVAILABLE(
      214,
      "serve.unavailable",
      LocateAnswer.Status.UNAVAILABLE,
      "Map outputs that could not be served now (own limits, registration failed)"),
  BUSY(
      215,
      "serve.busy",
      LocateAnswer.Status.BUSY,
      "Map outputs answered busy: every registration leased to other readers"),
  DEFERRED(
      216,
      "serve.deferred",
      LocateAnswer.Status.DEFERRED,
      "Map outputs deferred: the answer was full (call.maxAnswerBytes), asked for again"),
  WAITS(220, "serve.waits", "Locates that waited for room (every output that could go leased)"),
  WAIT_MICROS(221, "serve.waitMicros", "Time locates waited for room (µs, summed)"),
  RELEASES(222, "serve.releases", "Leases readers released (the rest timed out)"),
  DISPLACED(
      223,
      "serve.displaced",
      "Waiting locates answered busy to let an older reader's in (the waiting line was full)"),
  OPEN_OUTPUTS(230, "serve.openOutputs", "Map outputs registered now (each an open file)"),
  PINNED_BYTES(231, "serve.pinnedBytes", "Bytes of map outputs registered and pinned now");

  private final Declaration declaration;
  private final LocateAnswer.Status status;

  ServingCounter(int id, String exportName, String label) {
    this(id, exportName, null, label);
  }

  ServingCounter(int id, String exportName, LocateAnswer.Status status, String label) {
    this.declaration = new Declaration(id, exportName, label);
    this.status = status;
  }

  @Override
  public Declaration declaration() {
    return declaration;
  }

  /** The locate answer this counter counts, or null. */
  public LocateAnswer.Status status() {
    return status;
  }

  private static final ServingCounter[] BY_STATUS =
      new ServingCounter[LocateAnswer.Status.values().length];

  static {
    for (ServingCounter c : values()) {
      if (c.status != null) {
        BY_STATUS[c.status.ordinal()] = c;
      }
    }
  }

  /** The counter of answers with {@code status}. */
  public static ServingCounter of(LocateAnswer.Status status) {
    return BY_STATUS[status.ordinal()];
  }
}
