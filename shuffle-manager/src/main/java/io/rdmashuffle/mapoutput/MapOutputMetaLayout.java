package io.rdmashuffle.mapoutput;

import io.rdmashuffle.memory.OffsetsEntryLayout;
import java.nio.ByteBuffer;

/**
 * The meta file a map output publishes beside its data file: where each partition ends in the
 * data file, its checksum, and a tag binding the entry to this one map output. Reducers READ
 * the entries of the partitions they need (one READ per map output and reduce range); local
 * readers also check the header. Big-endian:
 *
 * <pre>
 *  0               4               8               12              16
 *  +---------------+---------------+---------------+---------------+
 *  | magic "RDMO"  |  version = 1  |  shuffle id   | partitions n  |
 *  +---------------+---------------+---------------+---------------+
 *  |            map id             |             nonce             |
 *  +---------------+---------------+-------------------------------+
 *  | checksum alg  |   reserved    |                                  (32 .. 40)
 *  +---------------+---------------+
 *  entry p (p = 0 .. n-1) at 40 + 16 p:
 *  +-------------------------------+---------------+---------------+
 *  |  end of partition p in data   |  checksum(p)  |    tag(p)     |
 *  +-------------------------------+---------------+---------------+
 * </pre>
 *
 * Partition p spans {@code [end(p-1), end(p))} of the data file ({@code end(-1) = 0}), so the
 * entries {@code max(a-1, 0) .. b-1} describe partitions {@code [a, b)}. {@code tag(p)} is
 * derived from the map output's random nonce (published in its {@link MapOutputDescriptor}) and
 * p: entries READ from a region that is not this map output's (a stale descriptor whose rkey and
 * address were reused by another registration) fail the tag check instead of being used.
 */
public final class MapOutputMetaLayout {
  public static final int MAGIC = 0x52444d4f; // "RDMO"
  public static final int VERSION = 1;
  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 4;
  public static final int SHUFFLE_ID_OFFSET = 8;
  public static final int PARTITIONS_OFFSET = 12;
  public static final int MAP_ID_OFFSET = 16;
  public static final int NONCE_OFFSET = 24;
  public static final int CHECKSUM_ALGORITHM_OFFSET = 32;
  public static final int HEADER_BYTES = 40;
  public static final int ENTRY_END_OFFSET = 0;
  public static final int ENTRY_CHECKSUM_OFFSET = 8;
  public static final int ENTRY_TAG_OFFSET = 12;
  public static final int ENTRY_BYTES = 16;

  private MapOutputMetaLayout() {}

  /** The whole meta file of a map output. */
  public static ByteBuffer write(
      int shuffleId,
      long mapId,
      long nonce,
      ChecksumAlgorithm algorithm,
      long[] lengths,
      int[] checksums) {
    int n = lengths.length;
    if (checksums != null && checksums.length != n) {
      throw new IllegalArgumentException(
          "checksums=" + checksums.length + ": must match partitions=" + n);
    }
    ByteBuffer b = ByteBuffer.allocate(fileLength(n));
    b.putInt(MAGIC_OFFSET, MAGIC);
    b.putInt(VERSION_OFFSET, VERSION);
    b.putInt(SHUFFLE_ID_OFFSET, shuffleId);
    b.putInt(PARTITIONS_OFFSET, n);
    b.putLong(MAP_ID_OFFSET, mapId);
    b.putLong(NONCE_OFFSET, nonce);
    b.putInt(CHECKSUM_ALGORITHM_OFFSET, algorithm.id());
    long end = 0;
    for (int p = 0; p < n; p++) {
      if (lengths[p] < 0) {
        throw new IllegalArgumentException("length of partition " + p + "=" + lengths[p]);
      }
      end += lengths[p];
      int at = entryOffset(p);
      b.putLong(at + ENTRY_END_OFFSET, end);
      b.putInt(at + ENTRY_CHECKSUM_OFFSET, checksums == null ? 0 : checksums[p]);
      b.putInt(at + ENTRY_TAG_OFFSET, tag(nonce, p));
    }
    return b;
  }

  public static int fileLength(int partitions) {
    return HEADER_BYTES + partitions * ENTRY_BYTES;
  }

  public static int entryOffset(int partition) {
    return HEADER_BYTES + partition * ENTRY_BYTES;
  }

  /** First entry to READ for partitions {@code [start, end)}. */
  public static int firstEntry(int start) {
    return Math.max(start - 1, 0);
  }

  /** Where in the meta file the entries for partitions {@code [start, end)} begin. */
  public static int entriesOffset(int start) {
    return entryOffset(firstEntry(start));
  }

  /** How many bytes of entries describe partitions {@code [start, end)}. */
  public static int entriesLength(int start, int end) {
    return (end - firstEntry(start)) * ENTRY_BYTES;
  }

  /** The tag of partition {@code p}'s entry in the map output with {@code nonce}. */
  public static int tag(long nonce, int p) {
    long x = nonce + (p + 1) * 0x9E3779B97F4A7C15L;
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return (int) (x ^ (x >>> 31));
  }

  /** Checks a meta file's header against the descriptor it was found through. */
  public static void validateHeader(ByteBuffer header, MapOutputDescriptor d) {
    check("magic", header.getInt(MAGIC_OFFSET), MAGIC);
    check("version", header.getInt(VERSION_OFFSET), VERSION);
    check("shuffleId", header.getInt(SHUFFLE_ID_OFFSET), d.shuffleId());
    check("partitions", header.getInt(PARTITIONS_OFFSET), d.partitions());
    if (header.getLong(MAP_ID_OFFSET) != d.mapId()) {
      throw new IllegalArgumentException(
          "meta file mapId=" + header.getLong(MAP_ID_OFFSET) + ": expected " + d.mapId());
    }
    if (header.getLong(NONCE_OFFSET) != d.nonce()) {
      throw new IllegalArgumentException(
          "meta file of mapId=" + d.mapId() + ": nonce differs from its descriptor's (a"
              + " replaced map output)");
    }
  }

  private static void check(String name, int value, int expected) {
    if (value != expected) {
      throw new IllegalArgumentException(
          "meta file " + name + "=" + value + ": expected " + expected);
    }
  }

  /** Where the blocks of a reduce range lie in the data file, and their checksums. */
  public record Ranges(int start, int end, long[] starts, long[] ends, int[] checksums) {
    public long startOf(int partition) {
      return starts[partition - start];
    }

    public long endOf(int partition) {
      return ends[partition - start];
    }

    public int checksumOf(int partition) {
      return checksums[partition - start];
    }
  }

  /**
   * Parses the entries READ for partitions {@code [start, end)} ({@code entries} holds them from
   * its position, as {@link #entriesOffset} and {@link #entriesLength} said), checking every tag
   * against {@code nonce} and every offset against the data file's length.
   *
   * @throws IllegalArgumentException naming the bad field and value
   */
  public static Ranges parse(ByteBuffer entries, int start, int end, long nonce, long dataLength) {
    if (start < 0 || end <= start) {
      throw new IllegalArgumentException("partitions [" + start + ", " + end + "): empty range");
    }
    int first = firstEntry(start);
    int need = entriesLength(start, end);
    if (entries.remaining() < need) {
      throw new IllegalArgumentException(
          "meta entries length=" + entries.remaining() + ": partitions [" + start + ", " + end
              + ") need " + need);
    }
    int base = entries.position();
    int n = end - start;
    long[] starts = new long[n];
    long[] ends = new long[n];
    int[] sums = new int[n];
    long previous = 0;
    for (int p = first; p < end; p++) {
      int at = base + (p - first) * ENTRY_BYTES;
      int tag = entries.getInt(at + ENTRY_TAG_OFFSET);
      if (tag != tag(nonce, p)) {
        throw new IllegalArgumentException(
            "meta entry of partition " + p + " tag=" + tag + ": not this map output's (a"
                + " replaced or foreign region)");
      }
      long e = entries.getLong(at + ENTRY_END_OFFSET);
      if (p >= start) {
        OffsetsEntryLayout.validate(previous, e, dataLength);
        starts[p - start] = previous;
        ends[p - start] = e;
        sums[p - start] = entries.getInt(at + ENTRY_CHECKSUM_OFFSET);
      }
      previous = e;
    }
    return new Ranges(start, end, starts, ends, sums);
  }
}
