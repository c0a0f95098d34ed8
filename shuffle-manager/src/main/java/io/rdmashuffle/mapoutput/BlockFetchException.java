package io.rdmashuffle.mapoutput;

import java.io.IOException;

/**
 * A block could not be read: which map output, which partition, and why. Engine adapters turn it
 * into their fetch failure (Spark: {@code FetchFailedException} naming the block manager, shuffle,
 * map id, map index and reduce id from the {@link BlockFetcher.Source}'s tag), so the engine
 * re-runs the map that produced it.
 */
public final class BlockFetchException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Why a block could not be read. */
  public enum Kind {
    /** The READ failed twice (second time on a fresh connection), or no buffer could be had. */
    TRANSPORT,
    /** The bytes read do not match the checksum published with the block. */
    CHECKSUM,
    /** The map output's meta data is not what its descriptor promised (stale or foreign). */
    INVALID,
    /** A map output on this host could not be read (withdrawn, file gone). */
    LOCAL
  }

  private final Kind kind;
  private final transient BlockFetcher.Source source;
  private final int partition;

  public BlockFetchException(
      Kind kind, BlockFetcher.Source source, int partition, String message, Throwable cause) {
    super(message + " (" + source.descriptor() + ", partition " + partition + ")", cause);
    this.kind = kind;
    this.source = source;
    this.partition = partition;
  }

  public Kind kind() {
    return kind;
  }

  public BlockFetcher.Source source() {
    return source;
  }

  public int partition() {
    return partition;
  }
}
