/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.transport.LocalSideException;
import java.io.IOException;

/**
 * A block could not be read: which map output, which partition, why, and whose fault that is.
 * Engine adapters turn a failure of the map output ({@link Kind#blamesMapOutput()}) into their
 * fetch failure (Spark: {@code FetchFailedException} naming the block manager, shuffle, map id, map
 * index and reduce id from the {@link BlockSource}'s tag), so the engine re-runs the map; the
 * reader's own shortage into a plain task failure, which blames nobody else.
 */
public final class BlockFetchException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Why a block could not be read. */
  public enum Kind {
    /** The owner could not be reached or its READs kept failing, after every retry. */
    TRANSPORT(true),
    /** The bytes read do not match the checksum published with the block. */
    CHECKSUM(true),
    /** The owner's answer does not describe what was asked (a protocol violation). */
    INVALID(true),
    /** The owner does not have the map output (lost, never there, can't be read there). */
    MISSING(true),
    /** The owner has it but could not serve it, after every retry (its own limits). */
    UNAVAILABLE(true),
    /** The map output's file on this host could not be read (gone, truncated, damaged). */
    LOCAL(true),
    /**
     * The engine could not decode a block's bytes (its decompressor or deserializer failed): bad
     * bytes caught before the block's checksum was, as the engine's own reader treats them.
     */
    STREAM(true),
    /** The reader's own resources ran out (buffers, memory): nobody else's fault. */
    SHORTAGE(false),
    /**
     * This process's own side of the transport failed, after every retry: it could not set up its
     * side of a connection to the owner (its transport closed or lost its device; no socket, queue
     * pair or completion queue room), or its own device refused a READ's buffer. Nothing is known
     * against the owner, so it is not blamed; the task fails by itself.
     */
    OWN_SIDE(false),
    /**
     * The owner has the map output but stayed too busy to serve it (every registration it may hold
     * leased to other readers) for longer than the reader's patience: nobody's fault; the task
     * fails by itself and is tried again.
     */
    BUSY(false);

    private final boolean blamesMapOutput;

    Kind(boolean blamesMapOutput) {
      this.blamesMapOutput = blamesMapOutput;
    }

    /**
     * Whose fault a transport failure ({@code cause}, after every retry) is: this process's own
     * side ({@link #OWN_SIDE}) or the owner's ({@link #TRANSPORT}).
     */
    static Kind ofTransportFailure(Throwable cause) {
      return cause instanceof LocalSideException ? OWN_SIDE : TRANSPORT;
    }

    /** Whether the map output (its owner) is at fault, so the engine should re-run the map. */
    public boolean blamesMapOutput() {
      return blamesMapOutput;
    }
  }

  private final Kind kind;
  private final transient BlockSource source;
  private final int partition;

  public BlockFetchException(
      Kind kind, BlockSource source, int partition, String message, Throwable cause) {
    super(message + " (" + source + ", partition " + partition + ")", cause);
    this.kind = kind;
    this.source = source;
    this.partition = partition;
  }

  public Kind kind() {
    return kind;
  }

  /**
   * The same failure for a later call that finds the fetcher failed (a stream closed after its read
   * failed, say): a new exception with this one as its cause, so a caller can add one as suppressed
   * to the other. Not counted again.
   */
  BlockFetchException again() {
    return new BlockFetchException(this);
  }

  private BlockFetchException(BlockFetchException first) {
    super(first.getMessage(), first);
    this.kind = first.kind;
    this.source = first.source;
    this.partition = first.partition;
  }

  public BlockSource source() {
    return source;
  }

  public int partition() {
    return partition;
  }
}
