/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.engine;

/**
 * A batch of completions copied out of the device's completion objects: work request id and status
 * of each. Reused by its poller; the status values are {@code ibv_wc_status}'s.
 */
public final class Completions {
  public static final int SUCCESS = 0;
  public static final int WR_FLUSH_ERR = 5;
  public static final int REM_INV_REQ_ERR = 9;
  public static final int REM_ACCESS_ERR = 10;
  public static final int RETRY_EXC_ERR = 12;

  /**
   * The statuses that name an error of the side that posted the work request (its own buffer, queue
   * pair or protection domain): {@code LOC_LEN_ERR}, {@code LOC_QP_OP_ERR}, {@code LOC_EEC_OP_ERR},
   * {@code LOC_PROT_ERR}, {@code MW_BIND_ERR}, {@code LOC_ACCESS_ERR}, {@code LOC_RDD_VIOL_ERR}.
   */
  private static final long LOCAL_ERRORS =
      (1L << 1) | (1L << 2) | (1L << 3) | (1L << 4) | (1L << 6) | (1L << 8) | (1L << 14);

  private static final String[] NAMES = {
    "SUCCESS",
    "LOC_LEN_ERR",
    "LOC_QP_OP_ERR",
    "LOC_EEC_OP_ERR",
    "LOC_PROT_ERR",
    "WR_FLUSH_ERR",
    "MW_BIND_ERR",
    "BAD_RESP_ERR",
    "LOC_ACCESS_ERR",
    "REM_INV_REQ_ERR",
    "REM_ACCESS_ERR",
    "REM_OP_ERR",
    "RETRY_EXC_ERR",
    "RNR_RETRY_EXC_ERR",
    "LOC_RDD_VIOL_ERR",
    "REM_INV_RD_REQ_ERR",
    "REM_ABORT_ERR",
    "INV_EECN_ERR",
    "INV_EEC_STATE_ERR",
    "FATAL_ERR",
    "RESP_TIMEOUT_ERR",
    "GENERAL_ERR"
  };

  private final long[] wrIds;
  private final int[] statuses;

  /** Whether {@code status} is an error of the side that posted the work request. */
  public static boolean local(int status) {
    return status > 0 && status < 64 && (LOCAL_ERRORS & (1L << status)) != 0;
  }

  public Completions(int capacity) {
    wrIds = new long[capacity];
    statuses = new int[capacity];
  }

  public int capacity() {
    return wrIds.length;
  }

  public void set(int i, long wrId, int status) {
    wrIds[i] = wrId;
    statuses[i] = status;
  }

  public long wrId(int i) {
    return wrIds[i];
  }

  public int status(int i) {
    return statuses[i];
  }

  /** {@code IBV_WC_<name>} of a status, for messages. */
  public static String statusName(int status) {
    return status >= 0 && status < NAMES.length ? "IBV_WC_" + NAMES[status] : "status " + status;
  }
}
