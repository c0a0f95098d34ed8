/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport;

/**
 * The ids of the call services ({@link Transport#serveCalls}): one list, so two services never
 * share an id. Ids are part of the wire protocol: never reuse a retired one.
 */
public final class CallServices {
  /** The verbs transport's RDMA-CM connect announcement. */
  public static final int VERBS_ANNOUNCE = 1;

  /** Where a reader READs a map output. */
  public static final int LOCATE = 2;

  /**
   * A reader is done READing some map outputs it located: the owner ends their leases, so they may
   * be deregistered to make room.
   */
  public static final int RELEASE = 3;

  /**
   * A reader found a block corrupt: the owner says what checksum the block's bytes have in its file
   * now ({@code ChecksumService}), so the reader can tell a disk from a network.
   */
  public static final int CHECKSUM = 4;

  private CallServices() {}
}
