/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.memory.RegistrationException;

/** Registers memory with the tcp transport: served regions enter its region table. */
final class TcpRegistrar implements MemoryRegistrar {
  private final TcpRegionTable table = new TcpRegionTable();
  private final MemoryAccounting accounting;
  private volatile boolean closed;

  TcpRegistrar(MemoryAccounting accounting) {
    this.accounting = accounting;
  }

  TcpRegionTable table() {
    return table;
  }

  void close() {
    closed = true;
  }

  @Override
  public RegisteredRegion register(MemoryPiece piece, Access access, String owner, Runnable onFreed)
      throws RegistrationException {
    if (closed) {
      throw new RegistrationException("the tcp transport is closed");
    }
    TcpRegion region;
    if (access == Access.REMOTE_READ) {
      if (owner == null || owner.isEmpty()) {
        throw new IllegalArgumentException("a served region needs an owner application");
      }
      int rkey;
      try {
        rkey = table.reserve();
      } catch (IllegalStateException e) {
        throw new RegistrationException(e.getMessage(), e);
      }
      region =
          new TcpRegion(
              piece, access, owner, TcpRegion.addressOf(rkey), rkey, table, accounting, onFreed);
      table.publish(rkey, region);
    } else {
      region = new TcpRegion(piece, access, owner, 0, 0, table, accounting, onFreed);
    }
    accounting.registered(piece.length());
    return region;
  }

  @Override
  public MemoryAccounting accounting() {
    return accounting;
  }
}
