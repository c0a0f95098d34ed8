/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

import io.rdmashuffle.metrics.FailureKind;

/**
 * A call was refused. Thrown by a {@link CallHandler} to refuse with a status and a reason, and
 * raised on the calling side with the status and reason the serving side sent. Statuses below
 * {@link #FIRST_SERVICE_STATUS} are the connection server's own; a service defines its statuses
 * from there up.
 */
public final class CallRefusedException extends TransportException {
  private static final long serialVersionUID = 1L;

  /** No service is registered with the call's id. */
  public static final int UNKNOWN_SERVICE = 1;

  /** Every call worker is busy and the queue is full: retry later. */
  public static final int BUSY = 2;

  /**
   * The request or the answer exceeds {@code call.maxRequestBytes} / {@code call.maxAnswerBytes}.
   */
  public static final int TOO_LARGE = 3;

  /** The service failed unexpectedly (its log says why). */
  public static final int FAILED = 4;

  /** The request is not what the service understands. */
  public static final int MALFORMED = 5;

  /** The first status a service may define for itself. */
  public static final int FIRST_SERVICE_STATUS = 16;

  /** The largest reason, in UTF-8 bytes, that crosses the wire. */
  public static final int MAX_REASON_BYTES = 1024;

  private final int status;
  private final String reason;

  /** A handler's refusal; the server sends {@code status} and {@code reason} to the caller. */
  public CallRefusedException(int status, String reason) {
    this(status, reason, null);
  }

  /** The refusal as the calling side sees it. */
  public CallRefusedException(int status, String reason, PeerAddress peer) {
    super("call refused with status " + status + ": " + reason, peer, null, null);
    if (status <= 0) {
      throw new IllegalArgumentException("status=" + status + ": a refusal's status is positive");
    }
    this.status = status;
    this.reason = reason;
  }

  public int status() {
    return status;
  }

  /** The reason as the refusing side gave it. */
  public String reason() {
    return reason;
  }

  /** Whether retrying later may succeed. */
  public boolean isBusy() {
    return status == BUSY;
  }

  @Override
  public FailureKind kind() {
    return FailureKind.CALL_REFUSED;
  }
}
