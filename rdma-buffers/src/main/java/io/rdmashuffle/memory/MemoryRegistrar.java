/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

/**
 * Registers memory with a transport (a NIC's protection domain for verbs, a table of served regions
 * for tcp). Implemented by each transport; everything above it only sees {@link RegisteredRegion}s.
 */
public interface MemoryRegistrar {
  /**
   * Registers {@code piece}.
   *
   * @param owner the application whose authenticated peers may READ it ({@link
   *     Access#REMOTE_READ}); ignored for {@link Access#LOCAL_WRITE}
   * @param onFreed run once after the region is deregistered (after its last in-flight use), so the
   *     caller can release the memory
   * @throws RegistrationException when the transport refuses (e.g. memlock limit, device error)
   */
  RegisteredRegion register(MemoryPiece piece, Access access, String owner, Runnable onFreed)
      throws RegistrationException;

  /** Registered bytes and regions of this registrar, live. */
  MemoryAccounting accounting();

  /**
   * How served files are mapped to be registered: always read-only, from a descriptor open for
   * reading only; {@link FileMapper#SHARED} unless the transport can't register such a mapping.
   */
  default FileMapper fileMapper() {
    return FileMapper.SHARED;
  }

  /**
   * Whether a registration of {@link Access#REMOTE_READ} memory pins it in RAM (verbs: {@code
   * ibv_reg_mr} without on-demand paging). Pinned bytes count against the serving side's bound and
   * the process's memlock limit; a registration that pins nothing (tcp: a table entry, verbs with
   * on-demand paging) does not.
   */
  default boolean pinsMemory() {
    return false;
  }

  /**
   * Asks that {@code [offset, offset + length)} of {@code region} be made ready for READs ahead of
   * them: for a region registered with on-demand paging, the device faults those pages in now (a
   * published output, the ranges a reader announced), so the first READ does not pay the fault.
   * Asynchronous and best effort. Returns whether a prefetch was started; false (and nothing done)
   * for pinned regions and for transports without on-demand paging.
   */
  default boolean prefetch(RegisteredRegion region, long offset, long length) {
    return false;
  }
}
