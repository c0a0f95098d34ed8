/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvMr;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;

/**
 * A memory region registered with the NIC ({@code ibv_reg_mr}). Its address is the memory's virtual
 * address and its keys are the NIC's. Deregistered once, by whichever comes first: the last release
 * after close, or the device going away ({@link VerbsRegistrar#deviceRemoved}).
 */
final class VerbsRegion extends RegisteredRegion {
  private final VerbsRegistrar registrar;
  private final boolean onDemand;
  private IbvMr mr;

  VerbsRegion(
      MemoryPiece memory,
      Access access,
      String owner,
      IbvMr mr,
      boolean onDemand,
      VerbsRegistrar registrar,
      Runnable onFreed) {
    super(memory, access, owner, mr.getAddr(), mr.getRkey(), mr.getLkey(), onFreed);
    this.mr = mr;
    this.onDemand = onDemand;
    this.registrar = registrar;
  }

  /** Registered with on-demand paging (not pinned). */
  boolean onDemand() {
    return onDemand;
  }

  /** The memory region, or null once deregistered. */
  synchronized IbvMr mr() {
    return mr;
  }

  @Override
  protected void withdraw() {
    // nothing to do before deregistration: an rkey is valid until the NIC forgets it
  }

  @Override
  protected void deregister() {
    registrar.deregister(this);
  }

  /** Takes the memory region out of this object, exactly once; null afterwards. */
  synchronized IbvMr takeMr() {
    IbvMr m = mr;
    mr = null;
    return m;
  }
}
