package io.rdmashuffle.mapoutput;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the block readers of one process did: blocks and bytes read on this host and through the
 * transport, checksum mismatches, failures by kind. Lock-free; engines publish {@link
 * #snapshot()} next to the transport's counters.
 */
public final class ReadCounters {
  final LongAdder localBlocks = new LongAdder();
  final LongAdder localBytes = new LongAdder();
  final LongAdder remoteBlocks = new LongAdder();
  final LongAdder remoteBytes = new LongAdder();
  final LongAdder checksumMismatches = new LongAdder();
  private final EnumMap<BlockFetchException.Kind, LongAdder> failures =
      new EnumMap<>(BlockFetchException.Kind.class);

  public ReadCounters() {
    for (BlockFetchException.Kind k : BlockFetchException.Kind.values()) {
      failures.put(k, new LongAdder());
    }
  }

  void failed(BlockFetchException.Kind kind) {
    failures.get(kind).increment();
  }

  public long failures(BlockFetchException.Kind kind) {
    return failures.get(kind).sum();
  }

  public long checksumMismatches() {
    return checksumMismatches.sum();
  }

  /** Every counter by a stable name. */
  public Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("blocksLocal", localBlocks.sum());
    m.put("bytesLocal", localBytes.sum());
    m.put("blocksRemote", remoteBlocks.sum());
    m.put("bytesRemote", remoteBytes.sum());
    m.put("checksumMismatches", checksumMismatches.sum());
    for (BlockFetchException.Kind k : BlockFetchException.Kind.values()) {
      m.put("fetchFailures." + k.name().toLowerCase(Locale.ROOT), failures(k));
    }
    return m;
  }
}
