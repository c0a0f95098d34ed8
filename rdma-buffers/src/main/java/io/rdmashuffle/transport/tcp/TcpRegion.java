/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;

/**
 * A region registered with the tcp transport. Served regions sit in the transport's {@link
 * TcpRegionTable} until closed. Addresses are synthetic, as a NIC's would be opaque: each served
 * region gets its own 4 GiB window ({@code (slot + 1) << 32}), so an address outside it can never
 * fall into another region.
 */
final class TcpRegion extends RegisteredRegion {
  private final TcpRegionTable table;
  private final MemoryAccounting accounting;

  TcpRegion(
      MemoryPiece memory,
      Access access,
      String owner,
      long address,
      int rkey,
      TcpRegionTable table,
      MemoryAccounting accounting,
      Runnable onFreed) {
    super(memory, access, owner, address, rkey, 0, onFreed);
    this.table = table;
    this.accounting = accounting;
  }

  static long addressOf(int rkey) {
    return ((long) (rkey & TcpRegionTable.INDEX_MASK) + 1) << 32;
  }

  @Override
  protected void withdraw() {
    if (access() == Access.REMOTE_READ) {
      table.remove(rkey());
    }
  }

  @Override
  protected void deregister() {
    accounting.deregistered(length());
  }
}
