/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.SVCRegMr;
import com.ibm.disni.verbs.impl.NatIbvMr;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.FileMapper;
import io.rdmashuffle.memory.MemoryAccounting;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.MemoryRegistrar;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.memory.RegistrationException;
import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers memory with the NIC. Served regions go into a protection domain of their owner
 * application, and the queue pair a peer of that application is given is created in the same
 * domain: the NIC then refuses any rkey of another application's region on it (remote access
 * error). READ targets go into the transport's own domain, where its reading queue pairs live.
 * Served regions are registered with remote READ only (no local write, never remote write), from
 * read-only mappings of files opened for reading only ({@link FileMappings}).
 *
 * <p>Served memory is registered with on-demand paging ({@code IBV_ACCESS_ON_DEMAND}) when {@link
 * OdpSupport} says so: nothing is pinned, the device faults pages in as READs touch them, and a
 * region is prefetched when it is registered (a published output is about to be read) and on
 * request ({@link #prefetch}). Accounting tells pinned from on-demand bytes, so a bound on pinned
 * memory can leave on-demand regions out. READ targets (the buffer pool) stay pinned: they are
 * written by the device on every READ.
 *
 * <p>{@code ibv_reg_mr} is thread-safe, so registration runs on the caller's thread, not on the
 * completion queue's owner (pinning a large file takes time the data path should not wait for).
 */
final class VerbsRegistrar implements MemoryRegistrar {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsRegistrar.class);

  private final IbvContext context;
  private final IbvPd ownPd;
  private final Map<String, IbvPd> applicationPds = new HashMap<>();

  /** Applications withdrawn while regions of theirs were still registered. */
  private final Set<String> withdrawn = new java.util.HashSet<>();

  /** How many withdrawn applications are remembered, so that none gets a domain again. */
  private static final int ENDED_MEMORY = 1 << 16;

  /** Applications withdrawn (ended): a late registration or connect of theirs is refused. */
  private final Set<String> ended =
      Collections.newSetFromMap(
          new java.util.LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
              return size() > ENDED_MEMORY;
            }
          });

  private final Set<VerbsRegion> live = Collections.newSetFromMap(new IdentityHashMap<>());
  private final MemoryAccounting accounting;
  private final OdpSupport odp;
  private final FileMapper fileMapper;
  private boolean gone;
  private boolean released;

  VerbsRegistrar(IbvContext context, MemoryAccounting accounting, OdpSupport odp)
      throws IOException {
    this.context = context;
    this.accounting = accounting;
    this.odp = odp;
    this.ownPd = context.allocPd();
    this.fileMapper = odp.servedOnDemand() ? FileMapper.SHARED : FileMappings.forPinning(ownPd);
  }

  /** Which registration served memory gets, and why. */
  OdpSupport odp() {
    return odp;
  }

  IbvPd ownPd() {
    return ownPd;
  }

  /**
   * The protection domain of {@code application}'s served regions, created on first use; refused
   * once the application was withdrawn (final: it is never allocated again).
   */
  synchronized IbvPd pdOf(String application) throws IOException {
    if (gone) {
      throw new IOException("the RDMA device is gone");
    }
    if (ended.contains(application)) {
      // a late reader (a killed or speculative attempt) or registration after the application
      // ended: allocating again would keep a domain, regions and queue pairs for the process's life
      throw new IOException("application " + application + " was withdrawn from this server");
    }
    IbvPd pd = applicationPds.get(application);
    if (pd == null) {
      pd = context.allocPd();
      applicationPds.put(application, pd);
    }
    return pd;
  }

  /**
   * The application is withdrawn and its served queue pairs are gone: its protection domain is
   * deallocated now, or as its last region is deregistered.
   */
  synchronized void withdraw(String application) {
    ended.add(application);
    if (!applicationPds.containsKey(application) || released) {
      return;
    }
    withdrawn.add(application);
    releaseIfUnused(application);
  }

  /** Under the lock: deallocates a withdrawn application's domain once no region uses it. */
  private void releaseIfUnused(String application) {
    if (!withdrawn.contains(application)) {
      return;
    }
    for (VerbsRegion r : live) {
      if (application.equals(r.owner())) {
        return;
      }
    }
    withdrawn.remove(application);
    IbvPd pd = applicationPds.remove(application);
    if (pd != null) {
      dealloc(pd);
    }
  }

  @Override
  public RegisteredRegion register(MemoryPiece piece, Access access, String owner, Runnable onFreed)
      throws RegistrationException {
    IbvPd pd;
    int flags;
    try {
      if (access == Access.REMOTE_READ) {
        if (owner == null || owner.isEmpty()) {
          throw new IllegalArgumentException("a served region needs an owner application");
        }
        pd = pdOf(owner);
        flags =
            IbvMr.IBV_ACCESS_REMOTE_READ | (odp.servedOnDemand() ? IbvMr.IBV_ACCESS_ON_DEMAND : 0);
      } else {
        synchronized (this) {
          if (gone) {
            throw new IOException("the RDMA device is gone or the transport is closed");
          }
        }
        pd = ownPd;
        flags = IbvMr.IBV_ACCESS_LOCAL_WRITE;
      }
      SVCRegMr call = pd.regMr(piece.buffer(), flags);
      IbvMr mr;
      try {
        mr = call.execute().getMr();
      } finally {
        call.free();
      }
      boolean onDemand = (flags & IbvMr.IBV_ACCESS_ON_DEMAND) != 0;
      VerbsRegion region = new VerbsRegion(piece, access, owner, mr, onDemand, this, onFreed);
      synchronized (this) {
        live.add(region);
      }
      if (onDemand) {
        accounting.registeredOnDemand(piece.length());
        prefetch(region, 0, piece.length()); // a served region is registered to be read
      } else {
        accounting.registered(piece.length());
      }
      return region;
    } catch (IOException e) {
      throw new RegistrationException(
          "the NIC refused to register "
              + piece.length()
              + " bytes ("
              + e.getMessage()
              + "): "
              + (odp.servedOnDemand() && access == Access.REMOTE_READ
                  ? "on-demand registration refused (" + odp.describe() + ")"
                  : "registered memory is pinned, check the memlock limit")
              + (piece.isFile() ? "; the file is mapped " + fileMapper() : ""),
          e);
    }
  }

  /**
   * Read-only shared mappings on demand and where the kernel pins them, else read-only private ones
   * ({@link FileMappings}).
   */
  @Override
  public FileMapper fileMapper() {
    return fileMapper;
  }

  /**
   * Starts an {@code ibv_advise_mr} prefetch of a range of an on-demand region, in pieces the
   * native call takes (an int length); false for pinned regions, a closed region or a range outside
   * it.
   */
  @Override
  public boolean prefetch(RegisteredRegion region, long offset, long length) {
    if (!(region instanceof VerbsRegion r)
        || !r.onDemand()
        || length <= 0
        || offset < 0
        || offset > r.length() - length
        || !r.tryRetain()) {
      return false;
    }
    try {
      IbvMr mr = r.mr();
      if (mr == null) {
        return false;
      }
      long id = ((NatIbvMr) mr).getObjId();
      for (long done = 0; done < length; ) {
        int piece = (int) Math.min(length - done, 1L << 30);
        int rc = NativeExtras.prefetch(id, r.address() + offset + done, piece, false);
        if (rc != 0) {
          LOG.debug("prefetch of {} bytes of an on-demand region failed: errno {}", piece, -rc);
          return false;
        }
        done += piece;
      }
      return true;
    } finally {
      r.release();
    }
  }

  /** Served files are pinned unless they are registered for on-demand paging. */
  @Override
  public boolean pinsMemory() {
    return !odp.servedOnDemand();
  }

  void deregister(VerbsRegion region) {
    IOException failed = deregisterMr(region);
    if (failed != null) {
      LOG.warn("deregistering a memory region failed", failed);
    }
    if (region.onDemand()) {
      accounting.deregisteredOnDemand(region.length());
    } else {
      accounting.deregistered(region.length());
    }
    synchronized (this) {
      live.remove(region);
      if (region.owner() != null && !released) {
        releaseIfUnused(region.owner());
      }
    }
  }

  /**
   * Deregisters every region now and releases the protection domains: the device went away (so the
   * kernel can finish removing it), or the transport closes. Owners may still close their regions
   * later; that then only updates the accounting.
   *
   * <p>On close this must not wait for the last region: librdmacm owns the device context and may
   * close it as soon as the transport's last RDMA-CM id is gone (it does when a device enumeration
   * during some device's removal missed this one), after which any verbs call on the context
   * crashes the process. So everything is released while the listening id still holds the context.
   */
  void releaseAll() {
    List<VerbsRegion> regions;
    synchronized (this) {
      gone = true;
      regions = List.copyOf(live);
    }
    for (VerbsRegion r : regions) {
      IOException failed = deregisterMr(r);
      if (failed != null) {
        LOG.debug("deregistering a region at release failed", failed);
      }
    }
    releaseDomains();
  }

  /** Deregisters the region's memory region unless that was done already; the failure, if any. */
  private static IOException deregisterMr(VerbsRegion region) {
    IbvMr mr = region.takeMr();
    if (mr == null) {
      return null;
    }
    try {
      mr.deregMr().execute().free();
      return null;
    } catch (IOException e) {
      return e;
    }
  }

  private synchronized void releaseDomains() {
    if (released) {
      return;
    }
    released = true;
    for (IbvPd pd : applicationPds.values()) {
      dealloc(pd);
    }
    applicationPds.clear();
    dealloc(ownPd);
  }

  private static void dealloc(IbvPd pd) {
    try {
      pd.deallocPd();
    } catch (Exception e) {
      LOG.debug("deallocating a protection domain failed (regions still registered?)", e);
    }
  }

  @Override
  public MemoryAccounting accounting() {
    return accounting;
  }
}
