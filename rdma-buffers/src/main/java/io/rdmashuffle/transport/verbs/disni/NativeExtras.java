/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

/**
 * What the verbs transport needs from rdma-core beyond DiSNI 2.1's API, implemented in our native
 * library ({@code src/main/c/rdmashuffle_extras.c}). Lives in the DiSNI class loader, which loaded
 * that library, so its methods link. Object ids are DiSNI's ({@code getObjId()}). Methods return a
 * negative errno on failure rather than throw, except where noted.
 */
final class NativeExtras {
  /** {@link #awaitCompletion}: a completion event came (and was acknowledged). */
  static final int COMPLETION_EVENT = 1;

  /** {@link #awaitCompletion}: the wake-up was written. */
  static final int WOKEN = 2;

  private NativeExtras() {}

  /**
   * Makes librdmacm resync its device list, so it closes its context of a removed device once no id
   * uses it any more (without this the kernel waits forever for the removal to finish).
   *
   * @return the number of devices still present, or a negative errno
   */
  static native int syncDevices();

  /** A non-blocking eventfd to wake a thread in {@link #awaitCompletion}; fd or negative errno. */
  static native int createWakeup();

  /** Makes the wake-up readable; any thread. */
  static native int wake(int fd);

  static native int closeWakeup(int fd);

  /**
   * Blocks until the completion channel has an event (taken and acknowledged: {@link
   * #COMPLETION_EVENT}), the wake-up was written ({@link #WOKEN}), or the timeout (0).
   */
  static native int awaitCompletion(long compChannel, long cq, int wakeupFd, int timeoutMillis);

  /**
   * Destroys the queue pair of an RDMA-CM id, saying whether it is gone (librdmacm's
   * rdma_destroy_qp says nothing): 0, or a negative errno when it still exists.
   */
  static native int destroyQp(long cmId);

  /** Moves a queue pair to the error state (its posted work requests are flushed). */
  static native int moveQpToError(long qp);

  /**
   * On-demand paging capabilities of a device context: {@code general_caps << 32 | rc_odp_caps},
   * with {@link OdpSupport#SOFT_ROCE} set for a Soft-RoCE device (for messages); 0 when the device
   * has none, a negative errno when the query failed.
   */
  static native long odpCaps(long context);

  /**
   * Whether the device of a context answers RDMA READs of on-demand memory with the bytes asked
   * for: READs of three ranges (inside a page at an offset, across a page boundary, three pages) of
   * a region registered on demand, through two of the device's queue pairs connected to each other,
   * every byte compared. {@code right: ...}, {@code wrong: ...} (what came instead) or {@code
   * untested: ...} (why it could not run, e.g. the on-demand registration was refused).
   */
  static native String odpReadCheck(long context);

  /**
   * {@code name=caps} for every RDMA device this process can open (caps as {@link #odpCaps}); with
   * {@code check}, {@code ;} and the {@link #odpReadCheck} of the device appended where the caps
   * say RC READ on demand. Throws IOException when the device list can't be read.
   */
  static native String[] deviceOdpCaps(boolean check) throws java.io.IOException;

  /**
   * Asks the device to fault in a range of an on-demand memory region ahead of READs ({@code
   * ibv_advise_mr} prefetch); waits for it when {@code wait}. 0 or a negative errno.
   */
  static native int prefetch(long mr, long address, int length, boolean wait);

  /**
   * Maps a range of a file open for reading only as a read-only private mapping ({@code PROT_READ,
   * MAP_PRIVATE}: java.nio's PRIVATE mode needs a channel open for writing), for a kernel that pins
   * no read-only shared file mapping ({@link FileMappings}). {@code offset} a multiple of the page
   * size. Unmapped with {@link #unmapFile}.
   *
   * @throws java.io.IOException when mmap fails
   */
  static native java.nio.ByteBuffer mapPrivateReadOnly(
      java.nio.channels.FileChannel channel, long offset, int length) throws java.io.IOException;

  /** Unmaps what {@link #mapPrivateReadOnly} returned: 0 or a negative errno. */
  static native int unmapFile(java.nio.ByteBuffer mapping);
}
